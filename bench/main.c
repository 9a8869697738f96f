/* STUB: being written. */
#include <stdio.h>
int main(void) { puts("ppbench"); return 0; }
