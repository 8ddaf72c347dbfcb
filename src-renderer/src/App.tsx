// Placeholder page: the real console arrives in a later issue.
export function App() {
  // `window.hangar` is absent when the page is opened outside Electron (e.g. in a plain browser).
  const hangar = typeof window.hangar === 'object' ? window.hangar : undefined;
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '15vh auto', padding: '0 24px' }}>
      <h1>Hangar</h1>
      <p>The console arrives in a later issue.</p>
      {hangar && (
        <p style={{ color: '#64748b', fontSize: 14 }}>
          Electron {hangar.versions.electron} · Chromium {hangar.versions.chrome} · Node {hangar.versions.node} ·{' '}
          {hangar.platform}
        </p>
      )}
    </main>
  );
}
