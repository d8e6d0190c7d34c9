// SPDX-License-Identifier: GPL-2.0
/*
 * icmark: mark the beginning or end of a counted phase for the insncount
 * QEMU plugin (bench/plugin/insncount.c). It executes, from a fresh
 * executable page, the label NOPs and the marker NOP the plugin recognises;
 * without the plugin they are NOPs and nothing happens.
 *
 * Usage: icmark begin|end LABEL	(LABEL: up to 120 printable bytes)
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define LABEL_MAX 120

int main(int argc, char **argv)
{
	unsigned char *page, *p;
	void (*fn)(void);
	size_t len;
	char cmd;

	if (argc != 3 || (strcmp(argv[1], "begin") && strcmp(argv[1], "end"))) {
		fprintf(stderr, "usage: icmark begin|end LABEL\n");
		return 2;
	}
	cmd = argv[1][0] == 'b' ? 'B' : 'E';
	len = strlen(argv[2]);
	if (!len || len > LABEL_MAX) {
		fprintf(stderr, "icmark: LABEL must be 1 to %d bytes\n", LABEL_MAX);
		return 2;
	}
	for (size_t i = 0; i < len; i++) {
		if (argv[2][i] <= ' ' || argv[2][i] >= 127) {
			fprintf(stderr, "icmark: LABEL must be printable, without spaces\n");
			return 2;
		}
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("icmark: mmap");
		return 1;
	}
	p = page;
	/* nopl disp32(%rax): four label bytes each, zero-padded. */
	for (size_t i = 0; i < len; i += 4) {
		*p++ = 0x0f;
		*p++ = 0x1f;
		*p++ = 0x80;
		for (size_t j = 0; j < 4; j++)
			*p++ = i + j < len ? argv[2][i + j] : 0;
	}
	/* nopl disp32(%rax,%rax,1) with "ICM" and the command. */
	memcpy(p, "\x0f\x1f\x84\x00ICM", 7);
	p += 7;
	*p++ = cmd;
	*p++ = 0xc3;	/* ret */
	fn = (void (*)(void))page;
	fn();
	munmap(page, 4096);
	return 0;
}
