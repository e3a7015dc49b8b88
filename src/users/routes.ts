// User administration (admin only): list, create, change role/password/disabled, delete.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { Conditions, listQuerySchema, listResponseSchema, paginate } from '../http/lists.js';
import { errorResponses, Empty, IdParams, StringEnum } from '../http/schemas.js';
import { recordAudit } from '../audit/log.js';
import { sessionOf } from '../auth/access.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../auth/passwords.js';
import { ROLES } from '../auth/roles.js';
import { revokeUserSessions } from '../auth/sessions.js';
import { guardAdmins } from './admin-guard.js';
import { deleteUser, findUserById, insertUser, updateUser, USER_COLUMNS, type UserRow } from './store.js';
import { UserSchema, userView } from './view.js';

const USER_NOT_FOUND = 'User not found';
const adminOnly = { access: { auth: 'session' as const, role: 'admin' as const }, notFound: USER_NOT_FOUND };
const Username = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' });
const Password = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH });

/** A password set for a single sign-on user could never be used: their provider signs them in. */
export const SSO_USER_PASSWORD = 'This user signs in through single sign-on and cannot have a password';

export function userRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/users',
    {
      config: adminOnly,
      schema: {
        tags: ['users'],
        operationId: 'listUsers',
        summary: 'List users',
        querystring: listQuerySchema(['created_at', 'updated_at', 'username', 'role'], 'created_at', {
          role: Type.Optional(StringEnum(ROLES)),
          disabled: Type.Optional(Type.Boolean()),
        }),
        response: { 200: listResponseSchema(UserSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const q = request.query;
      const where = new Conditions().addCommon(q, 'created_at', ['username']);
      if (q.role) where.add('role = ?', q.role);
      if (q.disabled !== undefined) where.add('disabled = ?', q.disabled);
      return paginate(ctx.db, {
        select: USER_COLUMNS,
        from: 'users',
        where,
        query: q,
        sortColumns: { created_at: 'created_at', updated_at: 'updated_at', username: 'lower(username)', role: 'role' },
        tieBreaker: 'id',
        map: (row: UserRow) => userView(row),
      });
    },
  );

  app.post(
    '/api/users',
    {
      config: adminOnly,
      schema: {
        tags: ['users'],
        operationId: 'createUser',
        summary: 'Create a user',
        body: Type.Object({ username: Username, password: Password, role: StringEnum(ROLES) }, { additionalProperties: false }),
        response: { 201: UserSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const actor = sessionOf(request).user.username;
      const { username, password, role } = request.body;
      const row = await insertUser(ctx.db, { username, passwordHash: await hashPassword(password), role });
      if (!row) throw conflict('Username already exists');
      await recordAudit(ctx.db, { actor, action: 'user.create', targetType: 'user', targetId: row.id, details: { username, role }, ip: request.ip });
      return reply.code(201).send(userView(row));
    },
  );

  app.patch(
    '/api/users/:id',
    {
      config: adminOnly,
      schema: {
        tags: ['users'],
        operationId: 'updateUser',
        summary: 'Change a user (role, password, disabled); disabling or a new password revokes their sessions',
        params: IdParams,
        body: Type.Object(
          { role: Type.Optional(StringEnum(ROLES)), password: Type.Optional(Password), disabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const me = sessionOf(request).user;
      const { id } = request.params;
      const body = request.body;
      if (id === me.id && ((body.role !== undefined && body.role !== me.role) || body.disabled === true)) {
        throw badRequest('You cannot change your own role or disable your own account');
      }
      const existing = await findUserById(ctx.db, id);
      if (!existing) throw notFound(USER_NOT_FOUND);
      if (body.password !== undefined && existing.auth_method === 'sso') throw badRequest(SSO_USER_PASSWORD);
      const passwordHash = body.password === undefined ? undefined : await hashPassword(body.password);
      const row = await ctx.db.transaction((tx) =>
        guardAdmins(tx, me.id, async () => {
          const updated = await updateUser(tx, id, { role: body.role, disabled: body.disabled, passwordHash });
          if (body.disabled === true || body.password !== undefined) await revokeUserSessions(tx, id, id === me.id ? sessionOf(request).sessionId : undefined);
          return updated;
        }),
      );
      if (!row) throw notFound(USER_NOT_FOUND);
      await recordAudit(ctx.db, {
        actor: me.username,
        action: 'user.update',
        targetType: 'user',
        targetId: id,
        details: { username: row.username, changed: Object.keys(body), role: body.role, disabled: body.disabled },
        ip: request.ip,
      });
      return userView(row);
    },
  );

  app.delete(
    '/api/users/:id',
    {
      config: adminOnly,
      schema: { tags: ['users'], operationId: 'deleteUser', summary: 'Delete a user', params: IdParams, response: { 204: Empty, ...errorResponses(400, 401, 403, 404, 409) } },
    },
    async (request, reply) => {
      const me = sessionOf(request).user;
      const { id } = request.params;
      if (id === me.id) throw badRequest('You cannot delete your own account');
      const existing = await findUserById(ctx.db, id);
      if (!existing || !(await ctx.db.transaction((tx) => guardAdmins(tx, me.id, () => deleteUser(tx, id))))) throw notFound(USER_NOT_FOUND);
      await recordAudit(ctx.db, { actor: me.username, action: 'user.delete', targetType: 'user', targetId: id, details: { username: existing.username }, ip: request.ip });
      return reply.code(204).send(null);
    },
  );
}
