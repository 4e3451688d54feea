/* log.h - leveled logging to stderr with a timestamp; errors are values
 * elsewhere, this is only for what an operator should see. */
#ifndef DROVER_SYS_LOG_H
#define DROVER_SYS_LOG_H

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_set_level(enum log_level l);
void log_msg(enum log_level l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
