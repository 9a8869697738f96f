/* The version of ppbench, recorded in every result so that results of
 * different versions are not compared silently. */
#ifndef PPBENCH_VERSION_H
#define PPBENCH_VERSION_H

#define PPBENCH_VERSION "0.1.0"

#endif
