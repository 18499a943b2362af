import { test, expect } from '@playwright/test';
import { choose, FIRST_RUN, openApp, region, reply, send } from '../../tests/e2e/app';
import { dismissStorageNotice, renameSession, scrollToTop, shoot } from './shoot';

// docs/images/session.png: a session as a person leaves it after a first look at their data:
// a file uploaded, two runs (the second with an HTML table and a value), the variables they made.

const SALES = `date,region,product,units,price
2026-03-02,North,Notebook,12,3.50
2026-03-02,South,Pencil set,30,2.20
2026-03-03,East,Notebook,8,3.50
2026-03-04,North,Backpack,3,24.90
2026-03-05,West,Pencil set,18,2.20
2026-03-05,South,Backpack,5,24.90
2026-03-06,East,Calculator,4,12.00
2026-03-09,North,Calculator,6,12.00
2026-03-10,West,Notebook,20,3.50
2026-03-11,South,Notebook,15,3.50
2026-03-12,East,Backpack,2,24.90
2026-03-13,West,Calculator,3,12.00
`;

const READ = `import csv

class Table:
    """A dict as a two-column HTML table."""
    def __init__(self, rows, head):
        self.rows, self.head = rows, head
    def _repr_html_(self):
        th = ''.join(f'<th>{h}</th>' for h in self.head)
        td = ''.join(f'<tr><td>{k}</td><td>{v:,.2f}</td></tr>' for k, v in sorted(self.rows.items()))
        return f'<table><tr>{th}</tr>{td}</table>'

orders = list(csv.DictReader(open('sales.csv')))
print(len(orders), 'orders, from', orders[0]['date'], 'to', orders[-1]['date'])`;

const SUMMARY = `revenue = {}
for o in orders:
    amount = int(o['units']) * float(o['price'])
    revenue[o['region']] = revenue.get(o['region'], 0) + amount
display(Table(revenue, ['Region', 'Revenue (€)']))
total = round(sum(revenue.values()), 2)
total`;

test('docs/images/session.png', async ({ page }) => {
  await openApp(page);
  await dismissStorageNotice(page);
  await renameSession(page, 'Sales');

  await choose(page, 'Upload files', [{ name: 'sales.csv', text: SALES }]);
  await expect(region(page, 'Files').getByRole('button', { name: 'Preview sales.csv' })).toBeVisible();

  await send(page, READ);
  await expect(reply(page, 1)).toContainText('12 orders, from 2026-03-02 to 2026-03-13', FIRST_RUN);
  await send(page, SUMMARY);
  const out = reply(page, 2);
  await expect(out).toContainText('Done in');
  await expect(out.getByRole('table').getByRole('row')).toHaveCount(5);
  await expect(out).toContainText('703.1');
  await expect(region(page, 'Variables').getByRole('row', { name: /^total\b/ })).toBeVisible();
  // The first run's printed line, then all of the second run.
  await scrollToTop(reply(page, 1).getByText('12 orders, from'), 12);
  await shoot(page, 'session.png');
});
