/** Beginner programs the recorder is refereed on (tests/unit/trace.test.ts), with the lines input() reads. */
export const CORPUS: { name: string; source: string; input: string[] }[] = [
  {
    name: 'loops',
    source: "total = 0\nfor i in range(4):\n    total += i\nn = 3\nwhile n > 0:\n    n -= 1\nprint('total is', total)",
    input: [],
  },
  {
    name: 'nested functions',
    source: 'def outer(x):\n    def inner(y):\n        return x + y\n    return inner(2) * 2\nresult = outer(5)\nprint(result)',
    input: [],
  },
  {
    name: 'recursion',
    source: 'def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\nprint(fact(4))',
    input: [],
  },
  {
    name: 'lists of lists',
    source: 'grid = [[0] * 3 for _ in range(2)]\ngrid[1][2] = 5\nrow = grid[0]\nrow.append(9)\nrows = len(grid)',
    input: [],
  },
  {
    name: 'aliasing',
    source: "a = [1, 2]\nb = a\nb.append(3)\nc = list(a)\nd = {'k': a, 'n': 1}\ns = {3, 1, 2}\nt = (a, c)",
    input: [],
  },
  {
    name: 'a class',
    source:
      'class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n    def moved(self, dx):\n        return Point(self.x + dx, self.y)\np = Point(1, 2)\nq = p.moved(3)\npoints = [p, q, p]',
    input: [],
  },
  {
    name: 'an exception caught',
    source: "def parse(text):\n    return int(text)\ntry:\n    parse('ten')\nexcept ValueError as e:\n    message = str(e)\nprint(message)",
    input: [],
  },
  {
    name: 'an exception not caught',
    source: 'def divide(a, b):\n    return a / b\nx = divide(4, 2)\ny = divide(1, 0)\nprint(y)',
    input: [],
  },
  {
    name: 'input()',
    source: "name = input('Name? ')\nn = int(input('How many? '))\nfor i in range(n):\n    print(name, i)",
    input: ['Ada', '2'],
  },
  {
    // Resumed by different callers: its frames above it differ from one resume to the next.
    name: 'a generator resumed from two functions',
    source: 'def counter():\n    n = 0\n    while n < 3:\n        yield n\n        n += 1\ndef first(g):\n    return next(g)\ndef second(g):\n    return next(g)\ng = counter()\na = first(g)\nb = second(g)\nrest = list(g)',
    input: [],
  },
  {
    // Equal values of different types (1, True, 1.0; -0.0 and 0.0) each keep their own type and repr.
    name: 'equal values of different types',
    source: "one = 1\nflag = True\nreal = 1.0\nzero = -0.0\nnought = 0.0\npair = [1, True, 1.0]\nword = 'ab'\nsame = 'a' + 'b'\nbig = 2 ** 200\nn = one + flag",
    input: [],
  },
];
