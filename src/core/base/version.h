/* version.h - drover's own version, shown by `drover version` and in a
 * Node's containerRuntimeVersion ("drover-process://VERSION"). */
#ifndef DROVER_VERSION_H
#define DROVER_VERSION_H

#define DROVER_VERSION "0.1.0"

#endif
