/** A generated part of a documentation page: the text between its two marker comments, replaced as a whole. */
export function betweenMarkers(page: string, markers: { readonly begin: string; readonly end: string; readonly file: string }, generated: string): string {
  const begin = page.indexOf(markers.begin);
  const end = page.indexOf(markers.end);
  if (begin === -1 || end < begin) throw new Error(`${markers.file} lacks the markers ${markers.begin} ... ${markers.end}`);
  return `${page.slice(0, begin + markers.begin.length)}\n${generated}\n${page.slice(end)}`;
}
