// Keyed rendering: lists updated in place, so what the user is typing or choosing survives live updates.

/**
 * Keeps `container`'s children in the order of `items`, one element per key: an existing element is
 * updated in place (so focus, typing and choices inside it survive), a new one is created, and the
 * ones whose key is gone are removed. Elements are only moved when the order really changed.
 */
export function reconcile(container, items, keyOf, create, update) {
  const wanted = new Set(items.map(keyOf));
  const byKey = new Map();
  for (const el of [...container.children]) {
    if (wanted.has(el._key) && !byKey.has(el._key)) byKey.set(el._key, el);
    else removeKeepingFocus(el, container);
  }
  let cursor = container.firstElementChild;
  for (const item of items) {
    const key = keyOf(item);
    let el = byKey.get(key);
    if (!el) {
      el = create(item);
      el._key = key;
      byKey.set(key, el);
    }
    update(el, item);
    if (el === cursor) cursor = cursor.nextElementSibling;
    else container.insertBefore(el, cursor);
  }
}

/** Removes an element; when it held the focus, the focus goes to its section's heading. */
function removeKeepingFocus(el, container) {
  const hadFocus = el.contains(document.activeElement);
  el.remove();
  if (hadFocus) focusSectionHeading(container);
}

export function focusSectionHeading(inside) {
  const heading = inside.closest('section')?.querySelector('h2');
  if (!heading) return;
  heading.setAttribute('tabindex', '-1');
  heading.focus();
}
