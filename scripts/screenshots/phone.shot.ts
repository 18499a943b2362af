import { test, expect } from '@playwright/test';
import { FIRST_RUN, openApp, reply, send } from '../../tests/e2e/app';
import { dismissStorageNotice, shoot } from './shoot';

// docs/images/phone.png: the app on a phone (390 × 844 CSS pixels, drawn at twice that), a session
// open with one round of output.
test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });

const CODE = `prices = {'bread': 2.40, 'milk': 1.15, 'apples': 3.20, 'cheese': 4.75}
total = sum(prices.values())
print(len(prices), 'items')
for item, price in prices.items():
    print(f'{item:<8}{price:6.2f} €')
total`;

test('docs/images/phone.png', async ({ page }) => {
  await openApp(page);
  await dismissStorageNotice(page);
  await page.evaluate(async () => {
    const api = window.pytabs!;
    const [first] = await api.listSessions();
    await api.renameSession(first.id, 'Groceries');
  });
  await expect(page.getByRole('heading', { name: 'Groceries', level: 1 })).toBeVisible();
  await send(page, CODE);
  const out = reply(page, 1);
  await expect(out).toContainText('Done in', FIRST_RUN);
  await expect(out).toContainText('cheese    4.75 €');
  await expect(out).toContainText('11.5');
  await shoot(page, 'phone.png');
});
