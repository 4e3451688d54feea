/* replay.c - runs the fuzz target once on every file of the given folders. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the whole file at path into a heap buffer. Returns NULL (after
 * printing why) if it cannot. */
static uint8_t *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t alloc = 0, n = 0, got;

	if (f == NULL) {
		perror(path);
		return NULL;
	}
	do {
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 4096;
			buf = realloc(buf, alloc);
			if (buf == NULL) {
				fclose(f);
				return NULL;
			}
		}
		got = fread(buf + n, 1, alloc - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		perror(path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Replays every regular file of dir; returns how many ran, -1 on error. */
static long
replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	long ran = 0;

	if (d == NULL) {
		/* An empty folder is not kept by git: nothing to replay. */
		if (errno == ENOENT) {
			fprintf(stderr, "%s: no such folder, skipped\n", dir);
			return 0;
		}
		perror(dir);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;
		uint8_t *buf;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		buf = read_file(path, &len);
		if (buf == NULL) {
			closedir(d);
			return -1;
		}
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		ran++;
	}
	closedir(d);
	return ran;
}

int
main(int argc, char **argv)
{
	long total = 0, n;
	int i;

	for (i = 1; i < argc; i++) {
		n = replay_dir(argv[i]);
		if (n < 0)
			return 1;
		printf("%s: %ld inputs\n", argv[i], n);
		total += n;
	}
	printf("replayed %ld inputs\n", total);
	return 0;
}
