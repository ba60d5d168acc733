import { useEffect, useState } from 'preact/hooks';

/** A small history router: the API serves index.html for every dashboard path. */
const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  if (replace) {
    history.replaceState(null, '', path);
  } else {
    history.pushState(null, '', path);
  }
  listeners.forEach((listener) => listener());
  window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => listeners.forEach((listener) => listener()));

export function useLocation(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return { path: location.pathname, search: new URLSearchParams(location.search) };
}

/** Same-tab navigation for plain left clicks on internal links; everything else the browser does. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element).closest('a');
  if (
    !anchor ||
    event.defaultPrevented ||
    event.button !== 0 ||
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    event.altKey ||
    anchor.target ||
    anchor.origin !== location.origin ||
    anchor.pathname.startsWith('/api/')
  ) {
    return;
  }
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
