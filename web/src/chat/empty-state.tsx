import type { AppInfo } from './app-info';

interface Props {
  app: AppInfo;
  disabled: boolean;
  onPick: (text: string) => void;
}

/** A fresh conversation: what the app does and a few things to try. */
export function EmptyState({ app, disabled, onPick }: Props) {
  return (
    <section className="empty-state" aria-labelledby="empty-title">
      <div className="empty-state__mark" aria-hidden="true">
        <span />
        <span />
      </div>
      <h1 id="empty-title" className="empty-state__title">
        {app.label}
      </h1>
      <p className="empty-state__text">{app.description}</p>
      <ul className="suggestions" aria-label="Try one of these">
        {app.examples.map((example) => (
          <li key={example}>
            <button
              type="button"
              className="suggestion"
              disabled={disabled}
              onClick={() => onPick(example)}
            >
              {example}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
