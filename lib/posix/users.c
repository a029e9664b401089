/* User names for uids, on Linux and macOS: looked up once per uid per context. */
#include <pwd.h>

#include "../internal.h"

const char *os_user_name(hmn_context *ctx, uint32_t uid)
{
	for (size_t i = 0; i < ctx->n_users; i++)
		if (ctx->users[i].uid == uid)
			return ctx->users[i].name;

	struct passwd pw, *found = NULL;
	char buf[4096];
	const char *name = NULL;
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &found) == 0 && found)
		name = arena_strdup(ctx->arena, found->pw_name);

	if (array_reserve((void **)&ctx->users, &ctx->users_capacity, ctx->n_users,
			  sizeof(*ctx->users)) == 0)
		ctx->users[ctx->n_users++] = (struct user_cache_entry){ .uid = uid, .name = name };
	return name;
}
