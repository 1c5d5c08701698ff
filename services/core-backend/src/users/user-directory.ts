/**
 * The users the core backend knows, with the names it shows: copied by the user service on
 * every user change (`PUT /utils/update-user-name/:id`) and learnt from the access token of
 * each request, so a member's name is never older than their last request.
 */
import type { UserRepository } from './user-repository';

export interface UserName {
  username: string;
  fullName?: string;
}

export interface UserDirectory {
  /** Records the user of an access token; a database write only when the name is new here. */
  remember(id: string, username: string): Promise<void>;
  /** The user service's copy: creates or renames the user. */
  rename(id: string, name: UserName): Promise<void>;
  exists(id: string): Promise<boolean>;
}

/** Names already written, so most requests cost no write; bounded, oldest forgotten first. */
const REMEMBERED_MAX = 10_000;

export function createUserDirectory(repository: UserRepository): UserDirectory {
  const remembered = new Map<string, string>();
  const note = (id: string, username: string) => {
    remembered.delete(id);
    remembered.set(id, username);
    if (remembered.size > REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!);
  };

  return {
    async remember(id, username) {
      if (remembered.get(id) === username) return;
      await repository.upsertName(id, username);
      note(id, username);
    },
    async rename(id, name) {
      await repository.upsert(id, name.username, name.fullName);
      note(id, name.username);
    },
    exists: (id) => repository.exists(id),
  };
}
