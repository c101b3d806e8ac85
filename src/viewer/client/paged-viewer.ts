// The paged viewer: the server renders each page of a document to an image (watermarked in
// the pixels when the link asks); this lays the pages out, loads them as they near the screen,
// polls while the rest are being rendered, and reports time per page.

import { readingTime } from './reading-time.js';

interface ManifestPage {
  number: number;
  width: number;
  height: number;
  imageUrl: string;
  thumbnailUrl: string;
  text: string | null;
}
interface PageManifest {
  status: 'processing' | 'ready' | 'failed' | 'none';
  error: string | null;
  /** the version shown: page URLs name it */
  version: number | null;
  totalPages: number | null;
  visiblePages: number | null;
  pages: ManifestPage[];
}
type ShownPage = ManifestPage & { figure: HTMLElement; image: HTMLImageElement; thumbnail: HTMLButtonElement };

const POLL_INTERVAL_MS = 2000;
const POLL_LIMIT_MS = 10 * 60 * 1000;
const ZOOM_STEPS = [0.5, 0.67, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3];
const VISIBILITY_THRESHOLDS = Array.from({ length: 21 }, (_, i) => i / 20);

/** Sets an image's `src` from `data-src` once it comes within `rootMargin` of `root`'s visible box. */
function lazyImages(root: HTMLElement, rootMargin: string): IntersectionObserver {
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        const image = entry.target as HTMLImageElement;
        image.src = image.dataset.src!;
        observer.unobserve(image);
      }
    },
    { root, rootMargin },
  );
  return observer;
}

/** Scrolls `container` (only it, never the window) just enough to show `element`. */
function revealWithin(container: HTMLElement, element: HTMLElement): void {
  const box = container.getBoundingClientRect();
  const target = element.getBoundingClientRect();
  if (target.top < box.top) container.scrollTop -= box.top - target.top;
  else if (target.bottom > box.bottom) container.scrollTop += target.bottom - box.bottom;
  if (target.left < box.left) container.scrollLeft -= box.left - target.left;
  else if (target.right > box.right) container.scrollLeft += target.right - box.right;
}

/** Times a page image that failed (a server too busy to stamp it answers 503) is asked for again, 2, 4 and 8 s apart. */
const IMAGE_RETRIES = 3;
/** What an image is asked to do to load again, from the start (back online, or the document was found unchanged). */
const LOAD_AGAIN = 'viewer:load-again';

/**
 * A page's image, asked for again a few times when it fails; `onFirstFailure` hears of the first
 * failure of each try, and `mayRetry` says whether asking again can still help.
 */
function pageImage(url: string, page: ManifestPage, className: string, hooks: { onFirstFailure(): void; mayRetry(): boolean }): HTMLImageElement {
  const image = document.createElement('img');
  let retries = 0;
  const withRetry = (tag: string) => `${url}${url.includes('?') ? '&' : '?'}${tag}`;
  // Registered first, so that the page's own handler hears only of an image that failed for good.
  image.addEventListener('error', (event) => {
    if (retries === 0) hooks.onFirstFailure();
    if (retries >= IMAGE_RETRIES || !hooks.mayRetry()) return;
    event.stopImmediatePropagation();
    retries += 1;
    setTimeout(
      () => {
        if (hooks.mayRetry()) image.src = withRetry(`retry=${retries}`);
      },
      1000 * 2 ** retries,
    );
  });
  image.addEventListener(LOAD_AGAIN, () => {
    retries = 0;
    image.src = withRetry(`again=${Date.now()}`);
  });
  image.className = className;
  image.dataset.src = url;
  image.width = page.width;
  image.height = page.height;
  image.decoding = 'async';
  image.draggable = false;
  image.style.aspectRatio = `${page.width} / ${page.height}`;
  return image;
}

export function startPagedViewer(viewer: HTMLElement): void {
  const part = <T extends HTMLElement = HTMLElement>(selector: string) => viewer.querySelector<T>(selector)!;
  const button = (action: string) => part<HTMLButtonElement>(`[data-action="${action}"]`);
  const scrollArea = part('.viewer-scroll');
  const pageList = part('.viewer-pages');
  const thumbnailStrip = part('.viewer-thumbnails');
  const thumbnailList = part('.viewer-thumbnail-list');
  const status = part('#viewer-status');
  const progress = part('#viewer-progress');
  const pageInput = part<HTMLInputElement>('#viewer-page-input');
  const pageCount = part('#viewer-page-count');
  const pageSpoken = part('#viewer-page-spoken');
  const zoomLevel = part('#viewer-zoom-level');
  const previewNote = document.getElementById('preview-note');
  const trackUrl = viewer.dataset.trackUrl;
  const narrow = window.matchMedia('(max-width: 699.98px)');

  const pages: ShownPage[] = [];
  /** The version whose pages are shown: another one means the owner replaced the document meanwhile. */
  let shownVersion: number | null | undefined;
  /** Set once the document cannot be shown here any more (the link ended, changed or was replaced): nothing is asked again. */
  let over = false;
  const failedImages = new Set<HTMLImageElement>();
  /** The page to come back to, from the address (`#page=4`): a reload or Back keeps the visitor's place. */
  let placeToRestore = Number(/^#page=(\d+)$/.exec(location.hash)?.[1]) || 0;
  let totalPages: number | null = null;
  let visiblePages: number | null = null;
  let current = 0;
  // A page chosen by button, key or thumbnail stays current while it is on screen, even when
  // the end of the document cannot scroll it to the top.
  let pinned: number | null = null;
  let fit: 'width' | 'page' | null = 'width';
  let zoom = 1;

  const imageLoader = lazyImages(scrollArea, '200% 100%');
  const thumbnailLoader = lazyImages(thumbnailStrip, '100%');
  const visibleHeight = new Map<number, number>();
  const currentPageObserver = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) visibleHeight.set(Number((entry.target as HTMLElement).dataset.page), entry.intersectionRect.height);
      if (pinned !== null && (visibleHeight.get(pinned) ?? 0) > 0) return;
      pinned = null;
      let best = 0;
      let bestHeight = 0;
      for (const [number, height] of visibleHeight) if (height > bestHeight) [best, bestHeight] = [number, height];
      if (best) setCurrent(best);
    },
    { root: scrollArea, threshold: VISIBILITY_THRESHOLDS },
  );

  const { report: reportTime } = readingTime(trackUrl, () => current);

  const indexOf = (number: number) => pages.findIndex((page) => page.number === number);
  const pageGap = () => parseFloat(getComputedStyle(pageList).paddingTop) || 0;

  function setCurrent(number: number): void {
    if (number === current) return;
    reportTime();
    pages[indexOf(current)]?.thumbnail.removeAttribute('aria-current');
    current = number;
    history.replaceState(history.state, '', `#page=${number}`);
    const page = pages[indexOf(current)];
    page?.thumbnail.setAttribute('aria-current', 'page');
    if (page && !thumbnailStrip.hidden) revealWithin(thumbnailStrip, page.thumbnail);
    updateControls();
  }

  function updateControls(): void {
    const index = indexOf(current);
    button('previous').disabled = index <= 0;
    button('next').disabled = index < 0 || index === pages.length - 1;
    if (document.activeElement !== pageInput) pageInput.value = current ? String(current) : '';
    const count = visiblePages ?? totalPages ?? pages.length;
    pageInput.max = String(count || 1);
    pageInput.disabled = pages.length === 0;
    pageCount.textContent = count ? String(count) : '–';
    for (const action of ['thumbnails', 'fit-width', 'fit-page', 'zoom-in', 'zoom-out']) button(action).disabled = pages.length === 0;
    if (pages.length) {
      button('zoom-out').disabled = zoom <= ZOOM_STEPS[0]! + 0.001;
      button('zoom-in').disabled = zoom >= ZOOM_STEPS.at(-1)! - 0.001;
    }
    button('fit-width').setAttribute('aria-pressed', String(fit === 'width'));
    button('fit-page').setAttribute('aria-pressed', String(fit === 'page'));
    zoomLevel.textContent = `${Math.round(zoom * 100)}%`;
  }

  /** Sizes every page for the zoom, keeping the current page at the same place on screen. */
  function layout(): void {
    const { paddingLeft, paddingRight } = getComputedStyle(pageList);
    const fitWidth = Math.max(100, pageList.clientWidth - parseFloat(paddingLeft) - parseFloat(paddingRight));
    const page = pages[indexOf(current)] ?? pages[0];
    // "Fit page" fits every page, so a deck mixing portrait and landscape pages keeps one zoom.
    const tallest = Math.max(...pages.map((shown) => shown.height / shown.width));
    if (fit === 'width') zoom = 1;
    if (fit === 'page' && pages.length) zoom = Math.min(1, (scrollArea.clientHeight - 2 * pageGap()) / (fitWidth * tallest));
    const along = page ? (scrollArea.scrollTop - page.figure.offsetTop) / page.figure.offsetHeight : 0;
    const across = (scrollArea.scrollLeft + scrollArea.clientWidth / 2) / scrollArea.scrollWidth;
    pageList.style.setProperty('--page-width', `${Math.floor(fitWidth * zoom)}px`);
    if (page) scrollArea.scrollTop = page.figure.offsetTop + along * page.figure.offsetHeight;
    scrollArea.scrollLeft = across * scrollArea.scrollWidth - scrollArea.clientWidth / 2;
    updateControls();
  }

  function setZoom(next: number | 'width' | 'page'): void {
    fit = typeof next === 'number' ? null : next;
    if (typeof next === 'number') zoom = next;
    layout();
  }
  const zoomIn = () => setZoom(ZOOM_STEPS.find((step) => step > zoom + 0.001) ?? zoom);
  const zoomOut = () => setZoom([...ZOOM_STEPS].reverse().find((step) => step < zoom - 0.001) ?? zoom);

  /** Shows page `number`, or the nearest shown page before it. */
  function goTo(number: number): void {
    const page = [...pages].reverse().find((shown) => shown.number <= number) ?? pages[0];
    if (!page) return;
    pinned = page.number;
    setCurrent(page.number);
    scrollArea.scrollTop = page.figure.offsetTop - pageGap();
    // A page chosen by button, key or thumbnail is told to a screen reader; scrolling is not (it would chatter).
    pageSpoken.textContent = `Page ${page.number} of ${visiblePages ?? totalPages ?? pages.length}`;
  }
  const step = (by: number) => goTo(pages[Math.max(0, indexOf(current) + by)]?.number ?? current);

  function addPage(page: ManifestPage): void {
    const figure = document.createElement('figure');
    figure.className = 'viewer-page';
    figure.dataset.page = String(page.number);
    const hooks = { onFirstFailure: () => void recheck(), mayRetry: () => !over };
    const image = pageImage(page.imageUrl, page, 'viewer-page-image', hooks);
    image.addEventListener('error', () => markFailed(image));
    figure.append(image);
    if (page.text) {
      const text = document.createElement('div');
      text.className = 'visually-hidden';
      text.textContent = page.text;
      figure.append(text);
    }
    const thumbnail = document.createElement('button');
    thumbnail.type = 'button';
    thumbnail.className = 'viewer-thumbnail';
    thumbnail.setAttribute('aria-label', `Page ${page.number}`);
    const thumbnailImage = pageImage(page.thumbnailUrl, page, 'viewer-thumbnail-image', hooks);
    thumbnailImage.addEventListener('error', () => markFailed(thumbnailImage));
    thumbnailImage.alt = '';
    const label = document.createElement('span');
    label.textContent = String(page.number);
    thumbnail.append(thumbnailImage, label);
    thumbnail.addEventListener('click', () => goTo(page.number));
    const item = document.createElement('li');
    item.append(thumbnail);

    // Pages may finish out of order: insert in number order.
    const index = pages.findIndex((shown) => shown.number > page.number);
    const next = pages[index];
    pageList.insertBefore(figure, next?.figure ?? null);
    thumbnailList.insertBefore(item, next?.thumbnail.parentElement ?? null);
    pages.splice(index < 0 ? pages.length : index, 0, { ...page, figure, image, thumbnail });
    // The first page is on screen from the start, and the page preloaded its image: no need to wait a frame for the observer.
    if (pages.length === 1) image.src = image.dataset.src!;
    else imageLoader.observe(image);
    thumbnailLoader.observe(thumbnailImage);
    currentPageObserver.observe(figure);
  }

  function showManifest(manifest: PageManifest): void {
    if (shownVersion !== undefined && pages.length > 0 && manifest.version !== shownVersion) return showReplaced();
    shownVersion = manifest.version;
    const added = manifest.pages.filter((page) => indexOf(page.number) < 0);
    const totalChanged = manifest.totalPages !== totalPages;
    ({ totalPages, visiblePages } = manifest);
    added.forEach(addPage);
    if (added.length || totalChanged)
      for (const page of pages) page.image.alt = totalPages ? `Page ${page.number} of ${totalPages}` : `Page ${page.number}`;
    if (!current && pages[0]) setCurrent(pages[0].number);
    if (added.length) layout();
    else updateControls();
    if (placeToRestore && indexOf(placeToRestore) >= 0) {
      goTo(placeToRestore);
      placeToRestore = 0;
    }
    viewer.dataset.status = manifest.status;
    viewer.dataset.rendered = String(pages.length);

    if (previewNote && visiblePages !== null && totalPages !== null && visiblePages < totalPages) {
      previewNote.textContent = `Preview: ${visiblePages} of ${totalPages} pages`;
      if (previewNote.hidden) {
        previewNote.hidden = false;
        fitToWindow();
      }
    }
    const last = pages.at(-1)?.number ?? 0;
    const waiting = manifest.status === 'processing';
    progress.hidden = !(waiting && pages.length > 0 && (visiblePages === null || last < visiblePages));
    progress.textContent = `Preparing page ${last + 1}…`;
    // "none": no rendition exists and none is coming (the server queues one before answering).
    if (manifest.status === 'failed' || manifest.status === 'none') showStatus('error', 'This document could not be shown here.', manifest.error);
    else if (waiting && pages.length === 0) showStatus('waiting', 'Preparing the document…');
    else if (manifest.status === 'ready' && pages.length === 0) showStatus('info', 'This document has no pages to show.');
    else showStatus('info', '');
  }

  function showStatus(kind: 'waiting' | 'info' | 'error', message: string, detail?: string | null): void {
    // The same words again would be announced again by some screen readers.
    if (status.textContent === message + (detail ?? '')) return;
    status.replaceChildren(message);
    status.dataset.kind = kind;
    if (detail) {
      const line = document.createElement('span');
      line.className = 'viewer-status-detail';
      line.textContent = detail;
      status.append(line);
    }
    if (kind === 'error') progress.hidden = true;
  }

  /** Nothing more is asked for: a page whose image was still being tried is shown as failed, beside the reason. */
  function stopReading(kind: 'info' | 'error', message: string, detail: string): void {
    over = true;
    for (const image of pages.flatMap((page) => [page.image, ...page.thumbnail.getElementsByTagName('img')])) {
      if (image.src && !image.naturalWidth) markFailed(image);
    }
    showStatus(kind, message, detail);
  }
  const showReplaced = () => stopReading('info', 'This document has been updated.', 'Reload the page to read the new version.');

  /** Why the viewer's list can no longer be read: what the visitor is told, by the answer's status. */
  const ENDED: Record<number, string> = {
    403: 'This document can no longer be opened from this page.',
    404: 'This document has been removed.',
    410: 'This link has expired.',
  };

  /**
   * A page failed: asks the list again to learn why. The link ended, its gates changed or the
   * view's session is over: said, and nothing asked again; the document replaced: said; the same
   * document: the failed pages are asked for again (the network was down, the server busy).
   */
  let rechecking = false;
  async function recheck(): Promise<void> {
    if (rechecking || over) return;
    rechecking = true;
    try {
      const response = await fetch(viewer.dataset.manifestUrl!, { credentials: 'same-origin', cache: 'no-store' });
      if (!response.ok) {
        if (response.status >= 500) return;
        return stopReading(
          'error',
          ENDED[response.status] ?? 'This document cannot be shown here any more.',
          'Reload the page to see why, or to open it again.',
        );
      }
      const manifest = (await response.json()) as PageManifest;
      if (manifest.version !== shownVersion) return showReplaced();
      loadFailedAgain();
    } catch {
      // Offline: the browser's "online" event asks again.
    } finally {
      rechecking = false;
    }
  }

  function loadFailedAgain(): void {
    for (const image of failedImages) {
      image.parentElement?.classList.remove('failed');
      image.dispatchEvent(new Event(LOAD_AGAIN));
    }
    failedImages.clear();
  }

  /** A page's or thumbnail's image that failed for good: its page or thumbnail says so instead of a broken picture. */
  function markFailed(image: HTMLImageElement): void {
    image.parentElement?.classList.add('failed');
    failedImages.add(image);
  }
  window.addEventListener('online', () => void recheck());
  // A tab come back to after a while may show a document replaced or ended meanwhile.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && pages.length > 0) void recheck();
  });

  const deadline = performance.now() + POLL_LIMIT_MS;
  async function poll(): Promise<void> {
    if (over) return;
    try {
      const response = await fetch(viewer.dataset.manifestUrl!, { credentials: 'same-origin', cache: 'no-store' });
      if (response.ok) {
        const manifest = (await response.json()) as PageManifest;
        showManifest(manifest);
        if (manifest.status !== 'processing') return;
      } else if (response.status < 500) {
        return showStatus('error', 'This document could not be loaded.', 'Reload the page to try again.');
      }
    } catch {
      // offline for a moment: try again on the next tick
    }
    if (performance.now() > deadline)
      return showStatus('error', 'Preparing this document is taking longer than expected.', 'Reload the page to try again.');
    setTimeout(() => void poll(), POLL_INTERVAL_MS);
  }

  // The viewer fills the window below what comes before it (title, notes), so its bottom edge,
  // and a page at "fit page", show without scrolling the window; if little room is left, one screen.
  function fitToWindow(): void {
    const top = viewer.getBoundingClientRect().top + window.scrollY;
    const after = document.documentElement.scrollHeight - top - viewer.offsetHeight;
    const room = window.innerHeight - top - after;
    viewer.style.setProperty('--viewer-height', room >= window.innerHeight * 0.6 ? `${Math.floor(room)}px` : '');
  }

  function setThumbnailsOpen(open: boolean): void {
    thumbnailStrip.hidden = !open;
    button('thumbnails').setAttribute('aria-expanded', String(open));
    const page = pages[indexOf(current)];
    if (open && page) revealWithin(thumbnailStrip, page.thumbnail);
  }

  const fullscreenButton = button('fullscreen');
  const toggleFullscreen = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else viewer.requestFullscreen().catch(() => undefined);
  };
  if (document.fullscreenEnabled) {
    fullscreenButton.hidden = false;
    fullscreenButton.addEventListener('click', toggleFullscreen);
    document.addEventListener('fullscreenchange', () => fullscreenButton.setAttribute('aria-pressed', String(document.fullscreenElement === viewer)));
  }

  const keyActions: Record<string, () => void> = { Home: () => goTo(0), End: () => goTo(Infinity), '+': zoomIn, '=': zoomIn, '-': zoomOut };
  for (const key of ['ArrowLeft', 'ArrowUp', 'PageUp']) keyActions[key] = () => step(-1);
  for (const key of ['ArrowRight', 'ArrowDown', 'PageDown']) keyActions[key] = () => step(1);
  if (document.fullscreenEnabled) keyActions.f = toggleFullscreen;
  document.addEventListener('keydown', (event) => {
    const focus = event.target as HTMLElement;
    // Keys belong to the viewer when it, or nothing else on the page, has the focus.
    const ours = viewer.contains(focus) || focus === document.body || focus === document.documentElement;
    if (!ours || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || !pages.length) return;
    if (focus.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return;
    pinned = null;
    const action = keyActions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });

  for (const type of ['wheel', 'touchstart', 'pointerdown']) scrollArea.addEventListener(type, () => (pinned = null), { passive: true });
  button('previous').addEventListener('click', () => step(-1));
  button('next').addEventListener('click', () => step(1));
  button('zoom-in').addEventListener('click', zoomIn);
  button('zoom-out').addEventListener('click', zoomOut);
  button('fit-width').addEventListener('click', () => setZoom('width'));
  button('fit-page').addEventListener('click', () => setZoom('page'));
  button('thumbnails').addEventListener('click', () => setThumbnailsOpen(thumbnailStrip.hidden));
  narrow.addEventListener('change', () => setThumbnailsOpen(!narrow.matches));
  pageInput.addEventListener('focus', () => pageInput.select());
  pageInput.addEventListener('change', () => {
    const number = Math.round(Number(pageInput.value));
    if (Number.isFinite(number) && number > 0) goTo(number);
    pageInput.value = String(current);
  });
  pageInput.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') pageInput.value = String(current);
  });
  new ResizeObserver(() => layout()).observe(scrollArea);
  window.addEventListener('resize', fitToWindow);

  setThumbnailsOpen(!narrow.matches);
  fitToWindow();
  showStatus('waiting', 'Preparing the document…');
  updateControls();
  void poll();
}
