/**
 * Reports the seconds the visitor spends on a page (`page()` names it, 0: none yet) to the view's
 * `/track` address: when the page changes (`report()`), when the tab is hidden and when the visitor
 * leaves. Only time while the tab is shown counts: a tab opened in the background, or left hidden
 * and then closed, reports nothing for it. `navigator.sendBeacon` survives the page's unload.
 */
export function readingTime(trackUrl: string | undefined, page: () => number): { report(): void } {
  /** When the time being counted began; null while the tab is hidden. */
  let since: number | null = document.visibilityState === 'visible' ? performance.now() : null;
  function report(): void {
    if (since === null) return;
    const seconds = Math.round((performance.now() - since) / 1000);
    since = performance.now();
    const current = page();
    if (trackUrl && current && seconds > 0)
      navigator.sendBeacon(trackUrl, new Blob([JSON.stringify({ page: current, seconds })], { type: 'application/json' }));
  }
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') {
      report();
      since = null;
    } else {
      since = performance.now();
    }
  });
  window.addEventListener('pagehide', report);
  return { report };
}
