import { toDatabaseResponse } from '../../src/sources/schemas';
import { toDocumentResponse } from '../../src/documents/schemas';
import type { DocumentRecord } from '../../src/documents/document-repository';
import { toMemberResponse, toWorkspaceResponse } from '../../src/workspaces/schemas';

const created = new Date('2026-11-01T10:00:00.000Z');
const updated = new Date('2026-11-02T11:30:00.000Z');

describe('responses of stored rows', () => {
  const database = {
    id: 'd1',
    workspace_id: 'w1',
    name: 'sales',
    description: '',
    engine: 'postgresql' as const,
    host: 'db.internal',
    port: 5432,
    database_name: 'sales',
    username: 'reader',
    password_sealed: 'v1:sealed-password',
    created_by: 'u1',
    created_at: created,
    updated_at: updated,
  };

  it("answer the schema's fields in its order, dates as ISO 8601, computed fields as made", () => {
    const answer = toDatabaseResponse(database);
    expect(Object.keys(answer)).toEqual([
      'id',
      'name',
      'description',
      'engine',
      'host',
      'port',
      'database_name',
      'username',
      'has_password',
      'created_by',
      'created_at',
      'updated_at',
    ]);
    expect(answer).toMatchObject({
      id: 'd1',
      port: 5432,
      has_password: true,
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T11:30:00.000Z',
    });
  });

  it('never answer a column the schema does not name (a sealed secret, the workspace)', () => {
    const text = JSON.stringify(toDatabaseResponse(database));
    expect(text).not.toContain('sealed');
    expect(text).not.toContain('w1');
  });

  it('keep a null date null, and a computed field over the column of its name', () => {
    const document = {
      id: 'doc',
      workspace_id: 'w1',
      folder_id: null,
      name: 'a.pdf',
      source: 'upload',
      url: null,
      size_bytes: '12345',
      processing: 'local',
      type_ocr: 'ekstrak_only',
      task_id: 't1',
      state: 'queued',
      stage: 'pending',
      progress_pct: 0,
      error: null,
      error_code: null,
      pdf_url: null,
      summary_state: 'pending',
      created_by: 'u1',
      created_at: created,
      updated_at: updated,
      finished_at: null,
    } as unknown as DocumentRecord;
    const answer = toDocumentResponse(document);
    expect(answer.size_bytes).toBe(12345);
    expect(answer.finished_at).toBeNull();
    expect(answer.created_at).toBe('2026-11-01T10:00:00.000Z');
  });

  it("read a domain object's camelCase properties, and leave out an optional field it lacks", () => {
    const member = toMemberResponse({
      userId: 'u1',
      username: 'ana',
      fullName: 'Ana Tester',
      role: 'editor',
      createdAt: created,
      updatedAt: updated,
    });
    expect(member).toEqual({
      user_id: 'u1',
      username: 'ana',
      full_name: 'Ana Tester',
      role: 'editor',
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T11:30:00.000Z',
    });
    const workspace = toWorkspaceResponse({
      id: 'w1',
      name: 'W',
      description: '',
      settings: {} as never,
      createdBy: 'u1',
      createdAt: created,
      updatedAt: updated,
    });
    expect(JSON.parse(JSON.stringify(workspace))).not.toHaveProperty('role');
    expect(workspace.created_by).toBe('u1');
  });
});
