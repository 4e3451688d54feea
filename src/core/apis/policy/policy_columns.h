/* policy_columns.h - the table of PodDisruptionBudgets. As table.h. */
#ifndef DROVER_POLICY_COLUMNS_H
#define DROVER_POLICY_COLUMNS_H

#include "policy.h"
#include "table.h"

extern const struct column columns_pdb[];
extern const size_t columns_pdb_n;

#endif
