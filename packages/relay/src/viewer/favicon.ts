/**
 * The viewer's icon: a speech bubble in the page's accent colour. Served at `/favicon.svg` (the
 * page links it) and `/favicon.ico` (what a browser asks for unprompted), so neither is a 404.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="4" width="28" height="20" rx="6" fill="#3563e9"/><path d="M9 24v6l7-6z" fill="#3563e9"/><circle cx="10" cy="14" r="2.5" fill="#fff"/><circle cx="16" cy="14" r="2.5" fill="#fff"/><circle cx="22" cy="14" r="2.5" fill="#fff"/></svg>`;
