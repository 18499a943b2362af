import { expect, test, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/chromium.mjs';
import { openApp } from './app';
import { MODEL_URL, modelWorkers, serveModel } from './local-models';

// This machine has no GPU: with these flags Chromium's WebGPU offers SwiftShader, a software
// adapter without `shader-f16`, which llama.cpp's WebGPU backend asks for: given such an adapter,
// llama.cpp registers no GPU and keeps every buffer on the CPU. So no test here can run a model
// on WebGPU; these check that PyTabs says where the model really runs, by llama.cpp's own report.
test.use({ launchOptions: { executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu', '--enable-unsafe-swiftshader'] } });

/** Loads the tiny model (with `gpu`), and has it answer in plain words and in a schema. */
function load(page: Page, gpu?: 'always') {
  return page.evaluate(
    async ({ url, gpu }) => {
      const model = await window.pytabs!.loadLocalModel({ kind: 'url', url }, { seed: 7, gpu });
      window.testModel = model;
      const answer = await model.chat([{ role: 'user', content: 'Print the first rows of data.xlsx' }], { maxTokens: 16, ignoreEnd: true });
      const json = await model.json([{ role: 'user', content: 'Which tool?' }], { name: 'call', schema: { type: 'object', properties: { name: { type: 'string', enum: ['run_python'] } }, required: ['name'], additionalProperties: false } }, { maxTokens: 600 });
      return { info: model.info, answer, json };
    },
    { url: MODEL_URL, gpu },
  );
}

test('a software GPU is left for the CPU; asked for anyway, one without shader-f16 is refused before the load, and Settings says which', async ({ page }) => {
  test.setTimeout(240_000);
  await serveModel(page);
  await openApp(page);

  // By default a software GPU is slower than the CPU path: the CPU, and Settings says why.
  const auto = await load(page);
  expect(auto.info).toMatchObject({ backend: 'cpu', backendReason: { key: 'rtw_model_cpu_software', params: { name: 'google swiftshader' } } });
  expect(auto.answer.completionTokens).toBe(16);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('region', { name: 'This browser', exact: true })).toContainText(
    'A model in this browser: yes, on the CPU (WebGPU offers only a software GPU here, google swiftshader, slower), with up to 4 threads',
  );
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

  // Asked for, SwiftShader still cannot take it: it lacks the 16-bit floats llama.cpp's shaders use.
  const asked = await load(page, 'always');
  expect(asked.info).toMatchObject({
    backend: 'cpu',
    backendReason: { key: 'rtw_model_cpu_no_f16', params: { name: 'google swiftshader' } },
    nVocab: 515,
  });
  expect(asked.answer).toMatchObject({ finish: 'length', completionTokens: 16 });
  expect(asked.json.value).toEqual({ name: 'run_python' });
  await page.evaluate(() => window.testModel!.unload());
  await expect.poll(() => modelWorkers(page)).toEqual([]);
});

test.describe('a browser that says its GPU has shader-f16 when llama.cpp finds it has not', () => {
  // The model worker's script comes from the network, where the test changes what it is told.
  test.use({ serviceWorkers: 'block' });

  test('the model runs on the CPU, and says so by what llama.cpp reported, not by what was asked', async ({ page }) => {
    test.setTimeout(240_000);
    await serveModel(page);
    // Only the model's own worker is told so: llama.cpp, in wllama's worker, asks the adapter itself.
    const claim = `{ const has = GPUSupportedFeatures.prototype.has; GPUSupportedFeatures.prototype.has = function (name) { return name === 'shader-f16' || has.call(this, name); }; }\n`;
    await page.context().route('**/assets/model.worker-*.js', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: claim + (await response.text()) });
    });
    await openApp(page);
    const { info, answer } = await load(page, 'always');
    expect(info).toMatchObject({ backend: 'cpu', backendReason: { key: 'rtw_model_cpu_gpu_unused', params: { name: 'google swiftshader' } } });
    expect(info.buffers.model).toBeGreaterThan(0);
    expect(answer).toMatchObject({ finish: 'length', completionTokens: 16 });
    await page.evaluate(() => window.testModel!.unload());
    await expect.poll(() => modelWorkers(page)).toEqual([]);
  });
});
