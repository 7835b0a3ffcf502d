// gg tune (tools/tune.c): candidate configurations swept, checked and timed, the fastest
// recorded in a tuning database.
#ifndef GG_TOOLS_TUNE_H_
#define GG_TOOLS_TUNE_H_

#ifdef __cplusplus
extern "C" {
#endif

// `gg tune ...` (argv[1] is "tune"): the exit code, as gg run's.
int gg_tune_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif

#endif  // GG_TOOLS_TUNE_H_
