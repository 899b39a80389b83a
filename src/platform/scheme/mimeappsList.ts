/**
 * `mimeapps.list` (XDG MIME Applications spec) without `desktopId` as a handler of `mimeType`: the id is
 * taken out of that key's `;`-separated list in every section, and the key goes when nothing is left.
 * Every other line stays as it was. Undefined when the file names no such association.
 */
export function withoutAssociation(text: string, mimeType: string, desktopId: string): string | undefined {
  let changed = false;
  const lines = text.split('\n').flatMap((line) => {
    const eq = line.indexOf('=');
    if (line.startsWith('[') || eq < 0 || line.slice(0, eq).trim() !== mimeType) return [line];
    const ids = line.slice(eq + 1).split(';').map((id) => id.trim()).filter((id) => id.length > 0);
    const kept = ids.filter((id) => id !== desktopId);
    if (kept.length === ids.length) return [line];
    changed = true;
    return kept.length > 0 ? [`${mimeType}=${kept.join(';')};`] : [];
  });
  return changed ? lines.join('\n') : undefined;
}
