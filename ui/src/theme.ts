// Light and dark themes: the system preference by default, or the user's choice (kept in localStorage;
// only this preference is stored there, never anything about the session).
export type Theme = 'light' | 'dark' | 'system';
const KEY = 'vigil.theme';

export function storedTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function applyTheme(theme: Theme): void {
  if (theme === 'system') {
    localStorage.removeItem(KEY);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(KEY, theme);
    document.documentElement.dataset.theme = theme;
  }
}
