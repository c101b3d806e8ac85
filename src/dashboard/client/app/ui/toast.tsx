import { useEffect, useState } from 'preact/hooks';

interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'error';
}

let next = 0;
const listeners = new Set<(toasts: Toast[]) => void>();
let toasts: Toast[] = [];

function publish(list: Toast[]) {
  toasts = list;
  listeners.forEach((listener) => listener(toasts));
}

/** A short message at the bottom of the screen ("Link copied"), read out by screen readers. */
export function toast(message: string, tone: Toast['tone'] = 'info'): void {
  const id = ++next;
  publish([...toasts, { id, message, tone }]);
  setTimeout(() => publish(toasts.filter((item) => item.id !== id)), 4000);
}

export function Toasts() {
  const [list, setList] = useState(toasts);
  useEffect(() => {
    listeners.add(setList);
    return () => void listeners.delete(setList);
  }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {list.map((item) => (
        <p key={item.id} class={`toast toast-${item.tone}`}>
          {item.message}
        </p>
      ))}
    </div>
  );
}
