import { describe, expect, it } from 'vitest';
import { AppHarness } from '../app-harness.test-support.js';
import { createPickerApp } from './picker-app.js';

describe('picker (seed 004)', () => {
  it('resumes two sequential long-running tools in a sub-agent', async () => {
    const harness = new AppHarness(createPickerApp);
    const started = await harness.say('pick a fruit');
    expect(AppHarness.calls(started, 'transfer_to_agent')).toHaveLength(1);
    const [select] = AppHarness.calls(started, 'select_item');
    expect(select?.args).toEqual({
      options: ['Apple', 'Banana', 'Cherry'],
      prompt: 'Pick a fruit',
    });
    expect(started.some((e) => e.longRunningToolIds?.includes(String(select?.id)))).toBe(true);

    const selected = await harness.answer(String(select?.id), 'select_item', { item: 'Apple' });
    const [confirm] = AppHarness.calls(selected, 'confirm_choice');
    expect(confirm?.args).toEqual({ item: 'Apple' });

    // The second resume is the one the ADK bug of seed 004 silently dropped.
    const done = await harness.answer(String(confirm?.id), 'confirm_choice', { confirmed: true });
    expect(AppHarness.text(done)).toBe('You picked Apple, and it is confirmed.');
  });

  it('accepts other value shapes and reports an unconfirmed pick', async () => {
    const harness = new AppHarness(createPickerApp);
    const [select] = AppHarness.calls(await harness.say('help me choose'), 'select_item');
    expect(select?.args?.options).toEqual(['Red', 'Green', 'Blue']);
    const selected = await harness.answer(String(select?.id), 'select_item', { value: 'Green' });
    const [confirm] = AppHarness.calls(selected, 'confirm_choice');
    expect(confirm?.args).toEqual({ item: 'Green' });
    const done = await harness.answer(String(confirm?.id), 'confirm_choice', { confirmed: false });
    expect(AppHarness.text(done)).toBe('You picked Green, but did not confirm it.');
  });

  it('starts over on a second request in the same session', async () => {
    const harness = new AppHarness(createPickerApp);
    const [first] = AppHarness.calls(await harness.say('pick a fruit'), 'select_item');
    const [confirm] = AppHarness.calls(
      await harness.answer(String(first?.id), 'select_item', { item: 'Cherry' }),
      'confirm_choice',
    );
    await harness.answer(String(confirm?.id), 'confirm_choice', { confirmed: true });

    const again = await harness.say('pick one of tea, coffee or juice');
    const [second] = AppHarness.calls(again, 'select_item');
    expect(second?.args).toEqual({ options: ['tea', 'coffee', 'juice'], prompt: 'Pick one' });
  });

  it('has hints for both inputs', () => {
    const app = createPickerApp({ model: 'rules', effects: { once: (_k, f) => f() } });
    expect(app.hints.select_item?.({ options: ['A'], prompt: 'Pick a fruit' })).toBe(
      'Pick a fruit',
    );
    expect(app.hints.confirm_choice?.({ item: 'Apple' })).toBe('Confirm Apple?');
  });
});
