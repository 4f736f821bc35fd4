// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ArgumentList } from './argument-list.js';

afterEach(cleanup);

const row = (label: string) => {
  const term = screen.getByText(label, { selector: 'dt' });
  const value = term.nextElementSibling as HTMLElement;
  return value;
};

describe('ArgumentList', () => {
  it('shows each argument as a readable label and value, not JSON', () => {
    const { container } = render(
      <ArgumentList args={{ amount: 2000, currency: 'USD', recipient: 'Jiro', urgent: true }} />,
    );
    expect(row('Amount').textContent).toBe('2,000');
    expect(row('Currency').textContent).toBe('USD');
    expect(row('Recipient').textContent).toBe('Jiro');
    expect(row('Urgent').textContent).toBe('Yes');
    expect(container.textContent).not.toMatch(/[{}"]/);
  });

  it('humanizes snake_case keys and keeps the raw key as a title', () => {
    render(<ArgumentList args={{ num_images: 10 }} />);
    const term = screen.getByText('Num images');
    expect(term.getAttribute('title')).toBe('num_images');
    expect(row('Num images').textContent).toBe('10');
  });

  it('renders lists as chips and nested objects as nested lists', () => {
    render(
      <ArgumentList
        args={{ options: ['Apple', 'Banana'], address: { city: 'Kyoto', zip: null } }}
      />,
    );
    const chips = within(row('Options')).getAllByRole('listitem');
    expect(chips.map((c) => c.textContent)).toEqual(['Apple', 'Banana']);
    const address = row('Address');
    expect(within(address).getByText('City').nextElementSibling?.textContent).toBe('Kyoto');
    expect(within(address).getByText('Zip').nextElementSibling?.textContent).toBe('—');
  });

  it('truncates very long values and says when there are no arguments', () => {
    const { unmount } = render(<ArgumentList args={{ data: 'x'.repeat(500) }} />);
    expect(row('Data').textContent?.length).toBeLessThan(200);
    expect(row('Data').textContent?.endsWith('…')).toBe(true);
    unmount();
    render(<ArgumentList args={{}} />);
    expect(screen.getByText('No arguments.')).toBeTruthy();
  });
});
