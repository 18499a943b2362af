import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';
import { TurtlePicture } from '../../src/lib/turtle/picture';
import { loadRuntime } from './load-runtime';

// PyTabs' turtle inside a session's Runtime on real Pyodide: what a run sends to the page (live
// changes, then the picture kept with the reply), across runs, and within its memory bounds.
// Its geometry against CPython's is tests/unit/turtle-referee.test.ts.

type Bundle = Record<string, string>;
type Event = { type: 'turtle'; changes: { screen: string; ops: { o: string }[] } } | { type: 'display'; bundle: Bundle };

let pyodide: PyodideInterface;
let rt: PyProxy & Record<string, (...args: unknown[]) => unknown>;
let events: Event[] = [];
/** What the run's event loop is answered, in turn, and how long it said the page may wait each time. */
let answers: { kind: string; text?: string }[] = [];
let waits: (number | undefined)[] = [];

function plain<T>(proxy: PyProxy): T {
  try {
    return (proxy as unknown as { toJs(o: object): T }).toJs({ dict_converter: Object.fromEntries, create_proxies: false });
  } finally {
    proxy.destroy();
  }
}

async function run(code: string): Promise<{ status: string; error?: { traceback: string } }> {
  events = [];
  return plain((await rt.run(code, pyodide.toPy({}))) as PyProxy);
}

const pictures = () => events.filter((e): e is Extract<Event, { type: 'display' }> => e.type === 'display');
const changes = () => events.filter((e): e is Extract<Event, { type: 'turtle' }> => e.type === 'turtle');

beforeAll(async () => {
  pyodide = await loadRuntime();
  const emit = (kind: string, payload: PyProxy | string) => {
    if (kind === 'display') events.push({ type: 'display', bundle: plain<Bundle>((payload as PyProxy).copy()) });
    if (kind === 'turtle') events.push({ type: 'turtle', changes: JSON.parse(payload as string) });
  };
  const Runtime = pyodide.pyimport('pytabs.runtime').Runtime as (...args: unknown[]) => PyProxy;
  rt = Runtime('turtle', '/home/pyodide/workspace', emit) as typeof rt;
  const stdin = pyodide.pyimport('pytabs.stdin');
  stdin.install((_password: boolean, waitMs?: number) => {
    waits.push(waitMs);
    return answers.shift() ?? { kind: 'eof' };
  });
  stdin.destroy();
}, 60_000);

const event = (value: object) => ({ kind: 'line', text: JSON.stringify(value) });

describe('turtle in a session', () => {
  it('sends its changes as it draws and shows the picture after the run', async () => {
    const outcome = await run('import turtle\nt = turtle.Turtle()\nt.speed(10)\nfor _ in range(4):\n    t.forward(100)\n    t.left(90)\nt.pos()');
    expect(outcome.status).toBe('ok');
    expect(changes().length).toBeGreaterThan(0);
    expect(changes().flatMap((e) => e.changes.ops.map((op) => op.o))).toContain('pts');
    const [picture] = pictures();
    expect(pictures()).toHaveLength(1);
    expect(picture.bundle['image/svg+xml']).toContain('<polyline points="0,0 100,0 100,-100 0,-100 0,0"');
    expect(picture.bundle['text/plain']).toMatch(/^<turtle drawing "Python Turtle Graphics"/);
    expect(JSON.parse(picture.bundle['application/vnd.pytabs.turtle+json']).screen).toBe(changes()[0].changes.screen);
  });

  it('at speed 0, sends changes once a drawing has gone on for a while, and none for one done sooner', async () => {
    await run('import turtle, time\nturtle.done()\nturtle.speed(0)\nfor i in range(400):\n    turtle.forward(1)\n    turtle.left(1)\n    if i % 40 == 0:\n        time.sleep(0.02)');
    const screen = (bundle: Bundle) => JSON.parse(bundle['application/vnd.pytabs.turtle+json']).screen as string;
    const drawn = screen(pictures().at(-1)!.bundle);
    expect(changes().filter((e) => e.changes.screen === drawn).length).toBeGreaterThan(0);
    await run('turtle.done()\nturtle.speed(0)\nfor i in range(400):\n    turtle.forward(1)\n    turtle.left(1)');
    const { bundle } = pictures().at(-1)!;
    expect(screen(bundle)).not.toBe(drawn);
    expect(changes().filter((e) => e.changes.screen === screen(bundle))).toEqual([]);
    expect(bundle['image/svg+xml']).toContain('<polyline points="0,0 1,0');
  });

  it('shows no picture for a run that does not draw, and the whole screen for one that goes on drawing', async () => {
    await run('x = 1');
    expect(pictures()).toHaveLength(0);
    await run('t.pencolor("red")\nt.circle(30)');
    const svg = pictures()[0].bundle['image/svg+xml'];
    expect(svg).toContain('0,0 100,0 100,-100');
    expect(svg).toContain('stroke="#ff0000"');
  });

  it('starts a fresh screen after done(), as a new window would', async () => {
    await run('turtle.done()');
    await run('turtle.forward(10)');
    const svg = pictures()[0].bundle['image/svg+xml'];
    expect(svg).not.toContain('100,-100');
    expect(svg).toContain('0,0 10,0');
  });

  it('says why a turtle is not kept across a reload', async () => {
    await run('u = turtle.Turtle()');
    const changes = plain<{ put: { name: string; persisted: boolean; reason?: string }[] }>(rt.changes(10e6, 100e6) as PyProxy);
    rt.confirm_changes();
    const entry = changes.put.find((e) => e.name === 'u');
    expect(entry?.persisted).toBe(false);
    expect(entry?.reason).toContain('not kept across a reload');
  });

  it('keeps a long drawing bounded and says what it left out', async () => {
    const outcome = await run(
      'import turtle\nturtle.done()\nturtle.tracer(0)\nfor i in range(150_000):\n    turtle.forward(1)\n    turtle.left(1)\n' +
        'turtle.update()',
    );
    expect(outcome.status).toBe('ok');
    const bounds = pyodide.runPython('(turtle.Screen()._picture._points, turtle.Screen()._picture.dropped)').toJs() as number[];
    expect(bounds[0]).toBeLessThanOrEqual(100_000);
    expect(bounds[1]).toBeGreaterThan(0);
    expect(pictures().at(-1)?.bundle['text/plain']).toMatch(/the first [\d,]+ items left out/);
    // tracer(0) held the changes; past the cap the page gets the whole picture once instead.
    const ops = changes().flatMap((e) => e.changes.ops);
    expect(ops.length).toBeLessThan(20);
    expect(ops.map((op) => op.o)).toContain('all');
  }, 120_000);

  it("mainloop() with handlers runs timers and answers clicks and keys until bye()", async () => {
    answers = [
      event({ kind: 'click', x: 30, y: -40, button: 1 }),
      event({ kind: 'key', key: 'Up' }),
      event({ kind: 'key', key: 'Up', up: true }),
      // On the turtle's arrow (its tip at (30, 50), heading up): the turtle's handler runs too.
      event({ kind: 'click', x: 30, y: -46, button: 1 }),
      event({ kind: 'key', key: 'q', up: true }),
    ];
    waits = [];
    const outcome = await run(
      [
        'import turtle',
        'turtle.done()',
        't = turtle.Turtle()',
        'clicks, ticks, hits = [], [], []',
        'def clicked(x, y):',
        '    clicks.append((x, y))',
        '    t.goto(x, y)',
        'def up():',
        '    t.setheading(90)',
        '    t.forward(10)',
        'turtle.onscreenclick(clicked)',
        "turtle.onkey(up, 'Up')",
        "turtle.onkey(turtle.bye, 'q')",
        't.onclick(lambda x, y: hits.append((x, y)))',
        'turtle.ontimer(lambda: ticks.append(1), 0)',
        "turtle.ontimer(lambda: ticks.append('late'), 60_000)",
        'turtle.mainloop()',
      ].join('\n'),
    );
    expect(outcome.status).toBe('ok');
    expect(pyodide.runPython('clicks, tuple(t.pos()), ticks, hits').toJs()).toEqual([
      [
        [30, 40],
        [30, 46],
      ],
      [30, 46],
      [1],
      [[30, 46]],
    ]);
    // The timer due at once ran before the first wait; each wait lasts until the next timer is due.
    expect(waits).toHaveLength(5);
    for (const wait of waits) expect(wait).toBeGreaterThan(59_000);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(60_000);
    expect(pictures().at(-1)?.bundle['image/svg+xml']).toContain('30,-40');
  });

  it('Stop while the event loop waits ends the run with KeyboardInterrupt and keeps the picture', async () => {
    answers = [event({ kind: 'click', x: 5, y: 5, button: 1 }), { kind: 'cancelled' }];
    waits = [];
    const outcome = await run('import turtle\nturtle.onscreenclick(lambda x, y: turtle.goto(x, y))\nturtle.mainloop()');
    expect(outcome.status).toBe('error');
    expect(outcome.error?.traceback).toContain('KeyboardInterrupt');
    // No timer: the page may wait for a click as long as it takes.
    expect(waits).toEqual([-1, -1]);
    expect(pictures().at(-1)?.bundle['image/svg+xml']).toContain('0,0 5,5');
  });

  it("lets an assignment's check read what the turtle drew, also after done()", async () => {
    const checks = [
      'def check_square():',
      '    """You drew a closed square."""',
      '    import turtle',
      "    lines = turtle.record()['lines']",
      "    assert len(lines) == 4, f'Draw 4 sides, not {len(lines)}.'",
      '    lengths = {round(abs(complex(*b) - complex(*a)), 6) for a, b, _, _ in lines}',
      "    assert len(lengths) == 1, 'Make all sides the same length.'",
      "    assert abs(complex(*lines[-1][1]) - complex(*lines[0][0])) < 1e-6, 'End where you started.'",
    ].join('\n');
    const check = () => plain<{ passed: boolean; message: string }>(rt.run_check(checks, 'check_square', 10_000) as PyProxy);
    await run('import turtle\nturtle.done()\nfor _ in range(4):\n    turtle.forward(80)\n    turtle.left(90)\nturtle.done()');
    expect(check()).toMatchObject({ passed: true, message: 'You drew a closed square.' });
    await run('for _ in range(3):\n    turtle.forward(80)\n    turtle.left(120)');
    expect(check()).toMatchObject({ passed: false, message: 'Draw 4 sides, not 3.' });
  });

  it("gives the page's live picture the same lines as the picture kept with the reply", async () => {
    // Lines of 42 points begin and fill within one batch of changes: each point must reach the page once.
    await run('import turtle\nturtle.done()\nt = turtle.Turtle()\nt.speed(0)\nfor i in range(300):\n    t.forward(i * 0.5)\n    t.left(59)\n    if i % 50 == 0:\n        turtle.update()\nturtle.update()');
    const { bundle } = pictures().at(-1)!;
    const live = new TurtlePicture(JSON.parse(bundle['application/vnd.pytabs.turtle+json']).screen);
    for (const batch of changes()) if (batch.changes.screen === live.screen) live.apply(batch.changes as Parameters<TurtlePicture['apply']>[0]);
    const lines = (svg: string) => [...svg.matchAll(/<polyline points="([^"]*)"/g)].map((m) => m[1]);
    const kept = lines(bundle['image/svg+xml']);
    expect(kept.length).toBeGreaterThan(5);
    expect(lines(live.svg())).toEqual(kept);
  });

  it('draws a registered polygon as CPython does: its +y along the heading', async () => {
    await run("import turtle\nturtle.done()\nturtle.register_shape('kite', ((-5, 0), (0, 20), (5, 0)))\nk = turtle.Turtle('kite')\nk.left(90)");
    // The canvas points CPython's Tk turtle gives this kite heading north, then east.
    const sprite = () => (pyodide.runPython("turtle.update()\nlist(turtle.Screen()._picture.sprites[k._id]['pts'])").toJs() as number[]).map((v) => Math.round(v) + 0);
    expect(sprite()).toEqual([-5, 0, 0, -20, 5, 0]);
    await run('k.right(90)');
    expect(sprite()).toEqual([0, -5, 20, 0, 0, 5]);
  });

  it('draws with a new module turtle after clearscreen(), as CPython does, and record() has it', async () => {
    const outcome = await run('import turtle\nturtle.done()\nturtle.forward(50)\nturtle.left(90)\nturtle.clearscreen()\nturtle.forward(30)\nturtle.done()');
    expect(outcome.status).toBe('ok');
    expect(pictures().at(-1)?.bundle['image/svg+xml']).toContain('<polyline points="0,0 30,0"');
    const recorded = pyodide.runPython("import json\njson.dumps(turtle.record())") as string;
    const { lines, turtles } = JSON.parse(recorded) as { lines: unknown[]; turtles: { position: number[]; heading: number }[] };
    expect(lines).toEqual([[[0, 0], [30, 0], 'black', 1]]);
    expect(turtles).toEqual([expect.objectContaining({ position: [30, 0], heading: 0 })]);
  });

  it('shows a workspace GIF or PNG behind the drawing with bgpic(), and says which is missing', async () => {
    // A real 3 × 2 PNG, written by Python's own zlib: one red row, one blue.
    const png =
      "import struct, zlib\ndef chunk(kind, data):\n    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))\n" +
      "rows = b'\\x00' + b'\\xff\\x00\\x00' * 3 + b'\\x00' + b'\\x00\\x00\\xff' * 3\n" +
      "open('bg.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 3, 2, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))\n";
    const outcome = await run(png + "import turtle\nturtle.done()\nbefore = turtle.bgpic()\nturtle.bgpic('bg.png')\nafter = turtle.bgpic()\nturtle.forward(5)");
    expect(outcome.status).toBe('ok');
    expect(pyodide.runPython('(before, after)').toJs()).toEqual(['nopic', 'bg.png']);
    const svg = pictures().at(-1)!.bundle['image/svg+xml'];
    expect(svg).toMatch(/<image href="data:image\/png;base64,iVBORw0KGgo[^"]*" x="-1.5" y="-1" width="3" height="2"\/>/);
    const missing = await run("turtle.bgpic('nowhere.gif')");
    expect(missing.error?.traceback).toContain("FileNotFoundError: [Errno 44] No such file or directory: 'nowhere.gif'");
    await run("turtle.bgpic('nopic')\nturtle.forward(5)");
    expect(pictures().at(-1)!.bundle['image/svg+xml']).not.toContain('<image');
    await run('import os\nos.remove("bg.png")');
  });

  it('draws a compound shape part by part, on the turtle and in its stamps', async () => {
    const outcome = await run(
      "import turtle\nturtle.done()\nlayers = turtle.Shape('compound')\nlayers.addcomponent(((0, 0), (10, 0), (0, 10)), 'red', 'black')\n" +
        "layers.addcomponent(((0, 0), (-10, 0), (0, -10)), (0, 0, 1))\nturtle.register_shape('layers', layers)\nturtle.shape('layers')\nturtle.stamp()\nturtle.forward(30)",
    );
    expect(outcome.status).toBe('ok');
    const svg = pictures().at(-1)!.bundle['image/svg+xml'];
    // Heading east, the shape's +y points along +x: (10, 0) to the turtle's right is (0, 10) down the canvas.
    expect(svg).toContain('<polygon points="0,0 0,10 10,0" fill="#ff0000" stroke="#000000"');
    expect(svg).toContain('<polygon points="0,0 0,-10 -10,0" fill="#0000ff" stroke="#0000ff"');
    expect(svg).toContain('<polygon points="30,0 30,10 40,0" fill="#ff0000" stroke="#000000"');
  });

  it('lets a turtle.py in the workspace come first, as in CPython', async () => {
    await run('open("turtle.py", "w").write("MINE = True\\n")\nimport sys\nsys.modules.pop("turtle", None)\nimport turtle\nmine = turtle.MINE');
    expect(pyodide.runPython('mine')).toBe(true);
    await run('import os, sys\nos.remove("turtle.py")\nsys.modules.pop("turtle", None)');
  });
});

// Names Python 3.14's turtle (Pyodide's Python) has beside Debian's 3.11 (which has settiltangle, gone in 3.13).
const PYTHON_314_NAMES = ['teleport', 'fill', 'poly', 'no_animation', 'save'];
// Each public name called in turn on one screen: the arguments a name needs, as Python.
const CALLS = `
import turtle
ARGS = {
    'RawTurtle': '(turtle.Screen(),)', 'RawPen': '(turtle.Screen(),)', 'Shape': "('polygon', ((0, 0), (5, 5), (5, 0)))",
    'Vec2D': '(1, 2)', 'addshape': "('wedge', ((0, 0), (5, 5), (5, 0)))", 'register_shape': "('wedge', ((0, 0), (5, 5), (5, 0)))",
    'back': '(10,)', 'backward': '(10,)', 'bk': '(10,)', 'fd': '(10,)', 'forward': '(10,)', 'circle': '(10,)',
    'clearstamp': '(turtle.stamp(),)', 'distance': '(0, 0)', 'goto': '(0, 0)', 'setpos': '(0, 0)', 'setposition': '(0, 0)',
    'left': '(10,)', 'lt': '(10,)', 'right': '(10,)', 'rt': '(10,)', 'seth': '(90,)', 'setheading': '(90,)',
    'setx': '(5,)', 'sety': '(5,)', 'setundobuffer': '(100,)', 'tilt': '(5,)', 'settiltangle': '(5,)', 'towards': '(0, 0)',
    'write': "('x',)", 'teleport': '(1, 1)', 'title': "('names',)", 'onclick': '(None,)', 'ondrag': '(None,)',
    'onrelease': '(None,)', 'onscreenclick': '(None,)', 'onkey': "(None, 'a')", 'onkeypress': "(None, 'a')",
    'onkeyrelease': "(None, 'a')", 'ontimer': '(lambda: None, 0)', 'numinput': "('t', 'p')", 'textinput': "('t', 'p')",
    'save': "('names.svg',)", 'setworldcoordinates': '(-100, -100, 100, 100)', 'write_docstringdict': "('names_docs',)",
}
TK_ONLY = {'getcanvas', 'ScrolledCanvas'}
CONTEXTS = {'fill', 'poly', 'no_animation'}

def outcome(name):
    thing = getattr(turtle, name)
    args = eval(ARGS.get(name, '()'))
    try:
        if name in CONTEXTS:
            with thing(*args):
                turtle.forward(1)
        elif name == 'Terminator':
            raise thing('a closed window')
        else:
            thing(*args)
    except turtle.Terminator:
        return 'works'
    except turtle.TurtleGraphicsError as error:
        return 'no Tk window' if 'PyTabs has no Tk window' in str(error) else f'TurtleGraphicsError: {error}'
    except Exception as error:
        return f'{type(error).__name__}: {error}'
    return 'works'

def outcomes(names):
    found = {name: outcome(name) if hasattr(turtle, name) else 'missing' for name in names}
    found['__all__'] = sorted(set(names) - set(turtle.__all__))
    for expr in ('turtle.Screen().cv', 'turtle.Screen().getcanvas()'):
        try:
            eval(expr)
            found[expr] = 'works'
        except turtle.TurtleGraphicsError as error:
            found[expr] = 'no Tk window' if 'PyTabs has no Tk window' in str(error) else str(error)
    return found
`;

describe("CPython's turtle names", () => {
  it('has every public name of CPython 3.11 and 3.14: each works, or says PyTabs has no Tk window (Tk-only names)', async () => {
    const debian = JSON.parse(execFileSync('/usr/bin/python3', ['-c', 'import json, turtle; print(json.dumps(turtle.__all__))'], { encoding: 'utf8' })) as string[];
    expect(debian.length).toBeGreaterThan(100);
    const names = [...new Set([...debian, ...PYTHON_314_NAMES])].sort();
    await run('import sys\nsys.modules.pop("turtle", None)\nimport turtle\nturtle.done()');
    answers = [];
    const outcome = await run(CALLS + `found = outcomes(${JSON.stringify(names)})\nimport os\nfor leftover in ('names.svg', 'names_docs.py'):\n    os.remove(leftover)`);
    expect(outcome.status, outcome.error?.traceback).toBe('ok');
    const found = plain<Record<string, unknown>>(pyodide.globals.get('found') as PyProxy);
    const tkOnly = ['ScrolledCanvas', 'getcanvas', 'turtle.Screen().cv', 'turtle.Screen().getcanvas()'];
    expect(Object.keys(found).length).toBe(names.length + 3);
    expect(found['__all__']).toEqual([]);
    for (const name of names.filter((n) => !tkOnly.includes(n))) expect([name, found[name]]).toEqual([name, 'works']);
    for (const name of tkOnly) expect([name, found[name]]).toEqual([name, 'no Tk window']);
  });
});
