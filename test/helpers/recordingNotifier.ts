import type { DesktopNotifier, Notice } from '../../src/platform/desktopNotification.js';

export type RecordedNotice = Notice & { withdrawn: number };

/** A desktop notifier that shows nothing: it keeps each notice it was given and counts its withdrawals. */
export function recordingNotifier(): DesktopNotifier & { notices: RecordedNotice[] } {
  const notices: RecordedNotice[] = [];
  return {
    notices,
    show(notice) {
      const shown = { ...notice, withdrawn: 0 };
      notices.push(shown);
      return () => {
        shown.withdrawn += 1;
      };
    },
  };
}
