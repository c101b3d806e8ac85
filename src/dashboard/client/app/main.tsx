import { render } from 'preact';
import { ErrorBoundary, LocationProvider } from 'preact-iso';
import { applyBrandColour } from './layout/brand.js';
import { Shell } from './layout/shell.js';
import { Routes } from './routes.js';
import { SessionProvider } from './session.js';
import './styles/tokens.css';
import './styles/base.css';
import './styles/layout.css';
import './styles/ui.css';
import './styles/screens.css';

applyBrandColour();

function App() {
  return (
    <LocationProvider scope="/app">
      <SessionProvider>
        <Shell>
          <ErrorBoundary>
            <Routes />
          </ErrorBoundary>
        </Shell>
      </SessionProvider>
    </LocationProvider>
  );
}

const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
