/**
 * A build's icon as the server extracted it (loaded from the server as this console reaches it), or
 * the app name's first letter when there is none or it cannot be loaded. Decorative: the name is
 * always written beside it.
 */
import { useState } from 'react';
import { useApi } from '../session.tsx';

export function AppIcon({ url, name, size = 'medium' }: { url: string | null; name: string; size?: 'small' | 'medium' | 'large' }) {
  const { http } = useApi();
  const [broken, setBroken] = useState(false);
  if (url && !broken) return <img className={`app-icon ${size}`} src={http.local(url)} alt="" onError={() => setBroken(true)} />;
  return (
    <span className={`app-icon ${size} placeholder`} aria-hidden="true">
      {Array.from(name.trim())[0]?.toUpperCase() ?? '?'}
    </span>
  );
}
