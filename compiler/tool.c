// Running an external tool.
#include "compiler/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

gg_status gg_tool_dir_make(const char* prefix, char* dir, size_t size) {
  const char* tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  if ((size_t)snprintf(dir, size, "%s/%s-XXXXXX", tmp, prefix) >= size)
    return gg_status_make(GG_STATUS_IO, "the temporary directory path is too long");
  if (!mkdtemp(dir))
    return gg_status_make(GG_STATUS_IO, "cannot make a directory for %s in %s: %s", prefix, tmp,
                          strerror(errno));
  return GG_OK;
}

void gg_tool_dir_remove(const char* dir, const char* const* files, int count) {
  for (int i = 0; i < count; ++i) unlink(files[i]);
  rmdir(dir);
}

gg_status gg_tool_run(const char* exe, char* const argv[], const char* log, int* exit_code) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, exe, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return gg_status_make(GG_STATUS_UNAVAILABLE, "cannot run %s: %s", exe, strerror(rc));
  int wstatus = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &wstatus, 0)) < 0 && errno == EINTR) {
  }
  if (waited < 0) return gg_status_make(GG_STATUS_INTERNAL, "waiting for %s: %s", exe, strerror(errno));
  *exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  return GG_OK;
}
