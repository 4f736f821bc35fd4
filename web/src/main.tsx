// First: it configures zod before anything parses with it.
import './no-eval';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import './styles/base.css';
// holdpoint/react's stylesheet: the approval components' look, as any host app imports it.
import '../../react/styles.css';
import './styles/shell.css';
import './styles/chat.css';
import './styles/results.css';
import './styles/inbox.css';
import './styles/grants.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
