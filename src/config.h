/* config.h -- helpers of config.c and info.c beyond the entry points that
 * server.h declares (initServerConfig, loadServerConfig, rewriteConfig,
 * streamIdModeName). Used by those two modules and by the unit tests. */
#ifndef CASQ_CONFIG_H
#define CASQ_CONFIG_H

#include "sds.h"

/* Parses redis.conf-style text (what loadServerConfig does after reading
 * the file). On error returns C_ERR and sets *err to the full
 * "*** FATAL CONFIG FILE ERROR ..." message. */
int loadServerConfigFromString(const char *config, sds *err);

/* Frees every string setting (for a clean exit under valgrind). */
void freeServerConfig(void);

/* Parses a memory amount as redis.conf writes it: "100", "1k" (1000),
 * "1kb" (1024), "1m", "1mb", "1g", "1gb"; units are case-insensitive.
 * Returns 1 and sets *bytes, or 0 if the text is not such a value. */
int parseMemoryValue(const char *s, long long *bytes);

/* Current value of a directive as CONFIG GET shows it, NULL if there is no
 * such directive. The caller frees it. */
sds getConfigValueByName(const char *name);
int configIsSensitive(const char *name);

/* ------------------------------------------------------------------------
 * Statistics (info.c)
 * --------------------------------------------------------------------- */

/* CONFIG RESETSTAT: zeroes the counters INFO reports. */
void resetServerStats(void);
/* Called from serverCron; samples the instantaneous rates every 100 ms. */
void trackInstantaneousMetrics(void);
/* The INFO text for the given section names (lower case, as the client
 * sent them; none means "default"). */
sds genCasqInfoString(sds *sections, int numsections);

#endif
