import { useEffect, useState } from 'preact/hooks';

/** Whether the screen is as narrow as a phone's: tables become lists of cards there (the stylesheets' 720 px). */
export function useNarrowScreen(): boolean {
  const query = '(max-width: 720px)';
  const [narrow, setNarrow] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const media = matchMedia(query);
    const onChange = () => setNarrow(media.matches);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  return narrow;
}
