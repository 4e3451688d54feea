/* shardhash.h - a uthash index split into SHARD_COUNT tables, for the
 * indexes that grow with the cluster (a cache's pods by name and by uid).
 *
 * uthash doubles a table's buckets at once, moving every item: at 100,000
 * pods scattered over the heap one doubling took 30-40 ms, the whole CPU
 * budget of a loop turn, and each pod index doubles a dozen times on the
 * way there. Split by the top bits of the key's hash (uthash picks a
 * bucket by the low bits), each table holds 1/64 of the items and doubles
 * on its own: one doubling at 100,000 pods moves about 1,600 items, well
 * under a millisecond.
 *
 * Usage, with UT_hash_handle hh in struct item and struct item
 * *index[SHARD_COUNT] zeroed:
 *   SHARD_ADD_KEYPTR(hh, index, it->key, strlen(it->key), it);
 *   SHARD_FIND(hh, index, key, strlen(key), found);
 *   SHARD_DELETE(hh, index, it);
 * Iteration is table by table (SHARD_COUNT HASH_ITERs), so not in the
 * order of insertion: keep a list beside it where order matters. */
#ifndef DROVER_CLIENT_SHARDHASH_H
#define DROVER_CLIENT_SHARDHASH_H

#include <uthash.h>

#define SHARD_BITS  6
#define SHARD_COUNT (1u << SHARD_BITS)
/* uthash's hashv is 32 bits: the top SHARD_BITS choose the table. */
#define SHARD_OF(hashv) ((unsigned)(hashv) >> (32 - SHARD_BITS))

#define SHARD_FIND(hh, index, keyptr, keylen, out)                             \
	do {                                                                   \
		unsigned shard_hv_;                                            \
		HASH_VALUE(keyptr, keylen, shard_hv_);                         \
		HASH_FIND_BYHASHVALUE(hh, (index)[SHARD_OF(shard_hv_)],        \
				      keyptr, keylen, shard_hv_, out);         \
	} while (0)

#define SHARD_ADD_KEYPTR(hh, index, keyptr, keylen, add)                       \
	do {                                                                   \
		unsigned shard_hv_;                                            \
		HASH_VALUE(keyptr, keylen, shard_hv_);                         \
		HASH_ADD_KEYPTR_BYHASHVALUE(hh, (index)[SHARD_OF(shard_hv_)],  \
					    keyptr, keylen, shard_hv_, add);   \
	} while (0)

/* The item knows its hash (hh.hashv), so its table. */
#define SHARD_DELETE(hh, index, del)                                           \
	HASH_DELETE(hh, (index)[SHARD_OF((del)->hh.hashv)], del)

#endif
