/* dirlock.h - one daemon per data directory (or socket): a lock held for
 * the process's life. */
#ifndef DROVER_DAEMON_DIRLOCK_H
#define DROVER_DAEMON_DIRLOCK_H

/* Locks the file path for this process's life (flock; the descriptor is
 * kept open and not inherited) and writes the pid in it: the lock of
 * what (a "data directory" or a "socket") name, for who ("drover
 * serve"). The descriptor, or -1 with the message printed if another
 * process holds it (one that died while a child it was starting held
 * the descriptor is waited for, up to 5 s). */
int dirlock_file(const char *who, const char *path, const char *what,
		 const char *name);

/* Makes path and its parents (mode 0700); 0, or -1 with errno. */
int dirlock_mkdir_p(const char *path);

#endif
