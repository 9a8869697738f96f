/* Positional arguments after an option table's parse (options.h): a word
 * that followed an on|off option given without a value ("--model maybe")
 * was its value mistyped, not a positional argument. */
#ifndef PPBENCH_OPTPOS_H
#define PPBENCH_OPTPOS_H

/* pos[0..n): the positional arguments opts_parse (or opts_prelude) left.
 * When one is the word after an on|off option: "error: --NAME: 'WORD' is
 * not on or off" and 1 (the caller exits EXIT_USAGE); else 0. */
int opts_positional_bad(char **pos, int n, const char *cmd);

#endif
