// Tests that read the store's SQLite file through a connection of their own see what another
// process would: the bot's writes once committed. The bot groups its writes into one commit per
// 20 ms (src/store/sqlite-file.ts), so such a test commits what is pending first.
import { SqliteFile } from '../../src/store/sqlite-file.ts';

export function commitPending(file: string): void {
  const shared = SqliteFile.open(file);
  shared.commit();
  shared.close();
}
