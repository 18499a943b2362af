import { test, expect, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { deflateSync, strFromU8, unzipSync } from 'fflate';
import { FIRST_RUN, firstSessionId, openApp, reply, send } from './app';

// turtle as a student meets it, on the built app with real Pyodide: the drawing animates in the
// reply while the program runs, its picture stays with the reply (reload, export, notebook),
// saves as SVG and PNG, and Stop ends an endless drawing and keeps what was drawn.

const SQUARE = "import turtle\nt = turtle.Turtle()\nt.speed(1)\nt.color('red', 'gold')\nt.begin_fill()\nfor _ in range(4):\n    t.forward(150)\n    t.left(90)\nt.end_fill()\nprint('square done')";

/** What the live canvas shows now, as a data URL (it changes while the turtle moves). */
function liveCanvas(page: Page): Promise<string> {
  return page.getByRole('img', { name: /being drawn/ }).locator('canvas').evaluate((c: HTMLCanvasElement) => c.toDataURL());
}

test('a square animates as it is drawn, and its picture stays with the reply after a reload and in the notebook', async ({ page }) => {
  await openApp(page);
  await send(page, SQUARE);
  const live = reply(page, 1).getByRole('img', { name: 'Turtle drawing, message 1, being drawn' });
  await expect(live).toBeVisible(FIRST_RUN);
  const first = await liveCanvas(page);
  await expect.poll(() => liveCanvas(page), { timeout: 10_000 }).not.toBe(first);

  await expect(reply(page, 1)).toContainText('square done', { timeout: 30_000 });
  await expect(reply(page, 1)).toContainText('Done in');
  await expect(live).toHaveCount(0);
  const picture = reply(page, 1).getByRole('figure', { name: 'Turtle drawing' });
  await expect(picture.locator('svg polyline')).toHaveAttribute('stroke', '#ff0000');
  await expect(picture.locator('svg polygon').first()).toHaveAttribute('fill', '#ffd700');

  await page.reload();
  await expect(reply(page, 1).getByRole('figure', { name: 'Turtle drawing' }).locator('svg polyline')).toHaveAttribute(
    'points',
    '0,0 150,0 150,-150 0,-150 0,0',
  );

  const id = await firstSessionId(page);
  const exported = await page.evaluate(async (id) => Array.from((await window.pytabsLib!.exportSession(window.pytabs!, id)).data), id);
  const notebook = unzipSync(new Uint8Array(exported))['history.ipynb'];
  const outputs = JSON.parse(strFromU8(notebook)).cells.flatMap((c: { outputs?: unknown[] }) => c.outputs ?? []);
  const display = outputs.find((o: { output_type: string }) => o.output_type === 'display_data') as { data: Record<string, string | string[]> };
  expect([display.data['image/svg+xml']].flat().join('')).toContain('<polyline points="0,0 150,0 150,-150 0,-150 0,0"');
  const dir = mkdtempSync(path.join(tmpdir(), 'pytabs-turtle-'));
  try {
    writeFileSync(path.join(dir, 'history.ipynb'), notebook);
    const check = spawnSync('/usr/bin/python3', ['-c', 'import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))', path.join(dir, 'history.ipynb')], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the picture saves as SVG and as PNG', async ({ page }) => {
  await openApp(page);
  await send(page, "import turtle\nturtle.speed(0)\nturtle.circle(60)\nturtle.write('hi', align='center')");
  const picture = reply(page, 1).getByRole('figure', { name: 'Turtle drawing' });
  await expect(picture).toBeVisible(FIRST_RUN);

  const svgDownload = page.waitForEvent('download');
  await picture.getByRole('button', { name: 'Save drawing as SVG' }).click();
  const svg = await svgDownload;
  expect(svg.suggestedFilename()).toBe('turtle-message-1.svg');
  const svgText = readFileSync((await svg.path())!, 'utf8');
  expect(svgText).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="640" height="600"/);
  expect(svgText).toContain('>hi</text>');

  const pngDownload = page.waitForEvent('download');
  await picture.getByRole('button', { name: 'Save drawing as PNG' }).click();
  const png = await pngDownload;
  expect(png.suggestedFilename()).toBe('turtle-message-1.png');
  const bytes = readFileSync((await png.path())!);
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // Width and height from the IHDR chunk: twice the window's pixels.
  expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([1280, 1200]);
});

test('Stop ends an endless drawing; what was drawn stays in the reply and the session goes on', async ({ page }) => {
  await openApp(page);
  await send(page, 'import turtle\nturtle.speed(3)\nwhile True:\n    turtle.forward(100)\n    turtle.left(123)');
  await expect(reply(page, 1).getByRole('img', { name: /being drawn/ })).toBeVisible(FIRST_RUN);
  await page.waitForTimeout(1_000);
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 1)).toContainText('Stopped after', { timeout: 30_000 });
  await expect(reply(page, 1).getByRole('figure', { name: 'Turtle drawing' }).locator('svg polyline').first()).toBeAttached();
  await send(page, 'print(round(turtle.heading()))');
  await expect(reply(page, 2)).toContainText('Done in', { timeout: 30_000 });
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
  'screen.ontimer(lambda: print("timer went off"), 300)',
  'screen.listen()',
  'screen.mainloop()',
].join('\n');

test('a click-and-keys game: the program keeps running, reacts to clicks on the turtle and to keys, until Stop', async ({ page }) => {
  await openApp(page);
  await send(page, GAME);
  const surface = reply(page, 1).getByRole('application', { name: 'Turtle drawing, message 1, being drawn: click it or press keys' });
  await expect(surface).toBeVisible(FIRST_RUN);
  await expect(surface).toBeFocused();
  await expect(reply(page, 1)).toContainText('timer went off');
  // The turtle stands at (0, 0): the middle of the 640 × 600 window.
  const canvas = surface.locator('canvas');
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width / 2, y: box.height / 2 } });
  await expect(reply(page, 1)).toContainText('caught 1');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('p');
  await expect(reply(page, 1)).toContainText('at (100.00,40.00)');
  // A click beside the turtle is not a catch.
  await canvas.click({ position: { x: 10, y: 10 } });
  await page.keyboard.press('p');
  await expect(reply(page, 1)).toContainText(/at \(100\.00,40\.00\)\nat \(100\.00,40\.00\)/);
  await expect(reply(page, 1)).not.toContainText('caught 2');
  await expect(reply(page, 1)).toContainText('Running');

  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 1)).toContainText('Stopped after', { timeout: 30_000 });
  await expect(reply(page, 1).getByRole('figure', { name: 'Turtle drawing' })).toBeVisible();
  await expect(surface).toHaveCount(0);
  await send(page, 'print(score)');
  await expect(reply(page, 2)).toContainText('1');
});

test('a turtle cell in an embed draws live, keeps its picture, and passes axe', async ({ page }) => {
  const payload = { name: 'Turtle square', cells: [SQUARE], files: [] };
  const z = Buffer.from(deflateSync(new TextEncoder().encode(JSON.stringify(payload)))).toString('base64url');
  await page.goto(`/#/embed?id=turtle&v=1&z=${z}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const output = page.getByRole('region', { name: 'Output' });
  await expect(output.getByRole('img', { name: /^Turtle drawing, message \d+, being drawn$/ })).toBeVisible(FIRST_RUN);
  await expect(output).toContainText('square done', { timeout: 30_000 });
  await expect(output.getByRole('figure', { name: 'Turtle drawing' }).locator('svg polyline')).toHaveAttribute('points', '0,0 150,0 150,-150 0,-150 0,0');
  await expect(output.getByRole('button', { name: 'Save drawing as PNG' })).toBeVisible();
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});

const DRAWN_SQUARE = 'import turtle\nturtle.speed(0)\nfor _ in range(4):\n    turtle.forward(80)\n    turtle.left(90)\nturtle.done()';
const DRAWN_CIRCLE = 'import turtle\nturtle.speed(0)\nturtle.circle(50)\nturtle.done()';
const KEYS_GAME = [
  't = turtle.Turtle()',
  't.speed(0)',
  "turtle.onkey(lambda: print('up at', t.pos()) or t.forward(10), 'Up')",
  "turtle.onkey(turtle.bye, 'q')",
  'turtle.listen()',
  'turtle.mainloop()',
].join('\n');

test('a game sent right after two finished drawings takes keys on its own drawing, with the CPU slowed 4x, ten times over', async ({ page }) => {
  test.setTimeout(900_000);
  await openApp(page);
  // The session's first start is not what this tests: it starts before the CPU slows.
  await send(page, 'import turtle');
  await expect(reply(page, 1)).toContainText('Done in', FIRST_RUN);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  let n = 1;
  for (let i = 0; i < 10; i++) {
    // The next message goes as soon as the reply says it is done, as a person's does.
    await send(page, DRAWN_SQUARE);
    await expect(reply(page, ++n)).toContainText('Done in', { timeout: 60_000 });
    await send(page, DRAWN_CIRCLE);
    await expect(reply(page, ++n)).toContainText('Done in', { timeout: 60_000 });
    await send(page, KEYS_GAME);
    const game = reply(page, ++n);
    const surface = game.getByRole('application', { name: `Turtle drawing, message ${n}, being drawn: click it or press keys` });
    await expect(surface, `try ${i + 1}: the game's drawing takes keys`).toBeFocused({ timeout: 60_000 });
    await page.keyboard.press('ArrowUp');
    await expect(game).toContainText('up at (0.00,0.00)', { timeout: 60_000 });
    await page.keyboard.press('q');
    await expect(game).toContainText('Done in', { timeout: 60_000 });
  }
});
