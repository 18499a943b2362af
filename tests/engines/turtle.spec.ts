import { execFileSync } from 'node:child_process';
import { test, expect } from './fixtures';
import { FIRST_RUN, type Person, type Target } from './person';

// turtle in Chromium, Firefox ESR and WebKitGTK, on a plain host and on one with the project's
// headers: the drawing animates in the reply, its picture stays after a reload and saves as PNG
// (the browser draws the SVG itself), and Stop keeps what was drawn on every path (an interrupt
// where there is shared memory, the worker ended where there is none).

const SQUARE = "import turtle\nt = turtle.Turtle()\nt.speed(2)\nt.color('red', 'gold')\nt.begin_fill()\nfor _ in range(4):\n    t.forward(150)\n    t.left(90)\nt.end_fill()\nprint('square done')";

const picture = (person: Person, n: number): Target => ({ role: 'figure', name: 'Turtle drawing', within: person.reply(n) });

/** The points of the first line in the picture of reply n, read from its SVG. */
function linePoints(person: Person, n: number): Promise<string | null> {
  return person.page.evaluate(
    (label) => document.querySelector(`[aria-label="${label}"] figure svg polyline`)?.getAttribute('points') ?? null,
    `Reply to message ${n}`,
  );
}

test('turtle: a square animates, its picture stays after a reload and saves as PNG; Stop keeps an endless drawing', async ({ person, host }) => {
  await person.open(host.url);
  await person.send(SQUARE);
  await person.find({ role: 'img', name: 'Turtle drawing, message 1, being drawn' }, { timeout: FIRST_RUN });
  await person.expectText(person.reply(1), 'square done');
  await person.expectText(person.reply(1), 'Done in');
  await person.expectGone({ role: 'img', name: 'Turtle drawing, message 1, being drawn' });
  await person.find(picture(person, 1));
  expect(await linePoints(person, 1)).toBe('0,0 150,0 150,-150 0,-150 0,0');

  await person.reload();
  await person.find(picture(person, 1));
  expect(await linePoints(person, 1)).toBe('0,0 150,0 150,-150 0,-150 0,0');

  const png = await person.download(() => person.click({ role: 'button', name: 'Save drawing as PNG', within: picture(person, 1) }));
  expect(png.name).toBe('turtle-message-1.png');
  expect([...png.data.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const size = new DataView(png.data.buffer, png.data.byteOffset);
  expect([size.getUint32(16), size.getUint32(20)]).toEqual([1280, 1200]);

  await person.send('import turtle\nturtle.speed(3)\nwhile True:\n    turtle.forward(100)\n    turtle.left(123)');
  await person.find({ role: 'img', name: 'Turtle drawing, message 2, being drawn' }, { timeout: FIRST_RUN });
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(2), 'Stopped after');
  await person.find(picture(person, 2));
  expect(await linePoints(person, 2)).toMatch(/^0,0 100,0\b/);
  await person.send("print('still', 6 * 7)");
  await person.expectText(person.reply(3), 'still 42', FIRST_RUN);
});

const GAME = [
  'import turtle',
  'screen = turtle.Screen()',
  'player = turtle.Turtle()',
  "player.shape('turtle')",
  'player.penup()',
  'score = 0',
  'def go_up():',
  '    player.setheading(90)',
  '    player.forward(20)',
  'def caught(x, y):',
  '    global score',
  '    score += 1',
  "    print('caught', score)",
  '    player.goto(100, 0)',
  "screen.onkey(go_up, 'Up')",
  "screen.onkey(lambda: print('at', player.pos()), 'p')",
  'player.onclick(caught)',
  'screen.listen()',
  'screen.mainloop()',
].join('\n');

test('turtle: a click-and-keys game reacts to a click on the turtle and to keys until Stop', async ({ person, host }) => {
  await person.open(host.url);
  await person.send(GAME);
  const surface = { role: 'application', name: 'Turtle drawing, message 1, being drawn: click it or press keys' };
  // A click lands in the middle of the drawing, where the turtle stands.
  const drawing = await person.find(surface, { timeout: FIRST_RUN });
  await drawing.click();
  await person.expectText(person.reply(1), 'caught 1');
  await drawing.press('ArrowUp');
  await drawing.press('ArrowUp');
  await drawing.type('p');
  await person.expectText(person.reply(1), 'at (100.00,40.00)');
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(1), 'Stopped after');
  await person.find(picture(person, 1));
  await person.send('print(score)');
  await person.expectText(person.reply(2), 'Done in', FIRST_RUN);
});

// write(move=True) as CPython's Tk measures: the same texts and fonts, written at the same
// places, with CPython's own turtle under Xvfb at 96 dots per inch (the page's CSS pixels) and
// with PyTabs' in the engine, which measures with its canvas.
const WRITES: [string, string, [string, number, string]][] = [
  ['Hello, world', 'left', ['Arial', 8, 'normal']],
  ['Hello, world', 'center', ['Arial', 24, 'bold']],
  ['Turtle graphics 42', 'left', ['Arial', 12, 'italic']],
  ['ink', 'center', ['Arial', 30, 'normal']],
  ['Hello, world', 'right', ['Arial', 8, 'normal']],
];
const WRITE_PROGRAM = [
  'import json, turtle',
  't = turtle.Turtle()',
  't.speed(0)',
  't.penup()',
  'ends = []',
  `for text, align, font in ${JSON.stringify(WRITES)}:`,
  '    t.goto(10.3, 0)',
  '    t.write(text, move=True, align=align, font=tuple(font))',
  '    ends.append(t.xcor())',
  "print('ends', json.dumps(ends))",
].join('\n');

function cpythonEnds(): number[] {
  const out = execFileSync('xvfb-run', ['-a', '-s', '-screen 0 1280x1024x24 -dpi 96', '/usr/bin/python3', '-c', WRITE_PROGRAM], { encoding: 'utf8' });
  return JSON.parse(/^ends (.*)$/m.exec(out)![1]) as number[];
}

test("turtle: write(move=True) moves the turtle to the text's end as CPython's Tk measures it", async ({ person, host }) => {
  const expected = cpythonEnds();
  // CPython's own numbers: 'Hello, world' in ("Arial", 8) is 56 pixels wide in Liberation Sans at 11 pixels.
  expect(expected[0]).toBe(65);
  await person.open(host.url);
  await person.send(WRITE_PROGRAM);
  await person.expectText(person.reply(1), 'ends [', FIRST_RUN);
  const text = (await person.text(person.reply(1)))!;
  const ends = JSON.parse(/ends (\[[^\]]*\])/.exec(text)![1]) as number[];
  console.log(`write(move=True) ends: CPython ${JSON.stringify(expected)}, PyTabs ${JSON.stringify(ends)}`);
  for (const [i, end] of ends.entries()) expect([WRITES[i], end]).toEqual([WRITES[i], expected[i]]);
});
