import type { AnyActorRef } from 'xstate';
import type { ConsentInput } from '../../machines/consent.js';
import type { PairingRequestInput } from '../../machines/pairingRequest.js';
import { childrenOfKind, type Supervisor } from '../../machines/supervisor.js';
import { visibleText } from '../core/shared/visibleText.js';
import type { DesktopNotifier, Notice } from '../platform/desktopNotification.js';

export const NOTICE_TITLE = 'Sluice: waiting for your approval';
const MAX_NAME = 60;

/** A name a client chose, as a notice quotes it: short, on one line, its invisible characters escaped as everywhere else. */
function quotedName(name: string): string {
  const chars = [...name.trim()];
  return `"${visibleText(chars.length > MAX_NAME ? `${chars.slice(0, MAX_NAME - 1).join('')}…` : chars.join(''))}"`;
}

/** What the notice of a waiting approval says: who asks and for what, never the statement. */
function noticeOf(child: AnyActorRef): Omit<Notice, 'onClick'> | undefined {
  const { value, context } = child.getSnapshot() as { value: unknown; context: unknown };
  if (child.id.startsWith('consent:') && value === 'asking') {
    const dialog = context as ConsentInput;
    const who = dialog.clientNameDeclared ? `A client calling itself ${quotedName(dialog.clientName)}` : `The client of the token ${quotedName(dialog.tokenName)}`;
    return { title: NOTICE_TITLE, body: `${who} wants to change ${quotedName(dialog.connectionName)}.` };
  }
  if (child.id.startsWith('pairingRequest:') && value === 'awaitingApproval') {
    const sheet = context as PairingRequestInput;
    return { title: NOTICE_TITLE, body: `A client calling itself ${quotedName(sheet.clientName)} asks to connect to Sluice.` };
  }
  return undefined;
}

/**
 * A desktop notice for each approval that starts waiting (a write's dialog, a pairing sheet), withdrawn
 * when it is answered, abandoned or expired; `onClick` opens the console.
 */
export function raiseApprovalNotices(supervisor: Supervisor, notifier: DesktopNotifier, onClick?: () => void): { stop(): void } {
  const shown = new Map<string, () => void>();
  const update = () => {
    const waiting = new Map<string, Omit<Notice, 'onClick'>>();
    for (const child of [...childrenOfKind(supervisor, 'consent'), ...childrenOfKind(supervisor, 'pairingRequest')]) {
      const notice = noticeOf(child);
      if (notice) waiting.set(child.id, notice);
    }
    for (const [id, withdraw] of shown) {
      if (waiting.has(id)) continue;
      shown.delete(id);
      withdraw();
    }
    for (const [id, notice] of waiting) {
      if (!shown.has(id)) shown.set(id, notifier.show({ ...notice, ...(onClick ? { onClick } : {}) }));
    }
  };
  const subscription = supervisor.subscribe(update);
  return {
    stop() {
      subscription.unsubscribe();
      for (const withdraw of shown.values()) withdraw();
      shown.clear();
    },
  };
}
