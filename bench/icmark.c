// SPDX-License-Identifier: GPL-2.0
/*
 * icmark: mark the beginning or end of a counted phase for the insncount
 * QEMU plugin (bench/plugin/insncount.c). It executes, from an executable
 * page of its own, the label NOPs and the marker NOP the plugin recognises;
 * without the plugin they are NOPs and nothing happens.
 *
 * Usage: icmark begin|end LABEL	(LABEL: up to 120 printable bytes)
 *        icmark serve		one "begin|end LABEL" per line on stdin,
 *				"ok" or "error: WHY" per line on stdout once
 *				the marker ran (or was refused)
 *
 * The server lets a long-lived shell mark phases without starting a process
 * per marker: a fork and an exec inside a phase would be counted as part of
 * it (millions of instructions under a debug kernel).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define LABEL_MAX 120

/* The error of a malformed command or label, or NULL once the marker ran. */
static const char *mark(unsigned char *page, const char *cmd, const char *label)
{
	unsigned char *p = page;
	void (*fn)(void);
	size_t len = strlen(label);
	char c;

	if (!strcmp(cmd, "begin"))
		c = 'B';
	else if (!strcmp(cmd, "end"))
		c = 'E';
	else
		return "the command is begin or end";
	if (!len || len > LABEL_MAX)
		return "LABEL must be 1 to 120 bytes";
	for (size_t i = 0; i < len; i++)
		if (label[i] <= ' ' || label[i] >= 127)
			return "LABEL must be printable, without spaces";
	/* nopl disp32(%rax): four label bytes each, zero-padded. */
	for (size_t i = 0; i < len; i += 4) {
		*p++ = 0x0f;
		*p++ = 0x1f;
		*p++ = 0x80;
		for (size_t j = 0; j < 4; j++)
			*p++ = i + j < len ? label[i + j] : 0;
	}
	/* nopl disp32(%rax,%rax,1) with "ICM" and the command. */
	memcpy(p, "\x0f\x1f\x84\x00ICM", 7);
	p += 7;
	*p++ = c;
	*p++ = 0xc3;	/* ret */
	fn = (void (*)(void))page;
	fn();
	return NULL;
}

static int serve(unsigned char *page)
{
	char line[LABEL_MAX + 64];

	while (fgets(line, sizeof(line), stdin)) {
		size_t n = strlen(line);
		const char *err;
		char *label;

		if (n && line[n - 1] == '\n') {
			line[--n] = 0;
			label = strchr(line, ' ');
			if (label)
				*label++ = 0;
			err = mark(page, line, label ? label : "");
		} else {
			int ch;

			/* Overlong (or unterminated): the rest is dropped. */
			while ((ch = getchar()) != EOF && ch != '\n')
				;
			err = "line too long or unterminated";
		}
		if (err)
			printf("error: %s\n", err);
		else
			printf("ok\n");
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char *page;
	const char *err;

	/* mark() checks the command and the label. */
	if (argc != 3 && !(argc == 2 && !strcmp(argv[1], "serve"))) {
		fprintf(stderr, "usage: icmark begin|end LABEL | icmark serve\n");
		return 2;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("icmark: mmap");
		return 1;
	}
	/*
	 * The server lives through the swap scenarios' memory pressure: locked,
	 * so that a mark never waits for its own pages to be swapped in (by
	 * the compressor being measured, inside the phase).
	 */
	if (argc == 2) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			perror("icmark: mlockall (marks may fault)");
		return serve(page);
	}
	err = mark(page, argv[1], argv[2]);
	if (err) {
		fprintf(stderr, "icmark: %s\n", err);
		return 2;
	}
	return 0;
}
