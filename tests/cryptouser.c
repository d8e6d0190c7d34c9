// SPDX-License-Identifier: GPL-2.0
/*
 * cryptouser: ask the kernel about a crypto algorithm over NETLINK_CRYPTO.
 *
 *   cryptouser [-n] NAME [TYPE]
 *
 * Sends CRYPTO_MSG_GETALG for NAME (with -n, first CRYPTO_MSG_NEWALG, which
 * instantiates a template such as acompd(lz4)), prints the reply's name,
 * driver, flags and report type, and exits 0 only when the report attribute
 * names TYPE (default "acomp"). Exit 1: wrong or missing report; 2: error.
 */
#include <errno.h>
#include <linux/cryptouser.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CRYPTO_ALG_ASYNC 0x00000080

struct msg {
	struct nlmsghdr n;
	struct crypto_user_alg cru;
};

static int talk(int fd, int type, const char *name, char *reply, size_t size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct msg m;
	ssize_t len;

	memset(&m, 0, sizeof(m));
	m.n.nlmsg_len = NLMSG_LENGTH(sizeof(m.cru));
	m.n.nlmsg_type = type;
	m.n.nlmsg_flags = NLM_F_REQUEST | (type == CRYPTO_MSG_NEWALG ? NLM_F_ACK : 0);
	m.n.nlmsg_seq = 1;
	strncpy(m.cru.cru_name, name, sizeof(m.cru.cru_name) - 1);
	if (sendto(fd, &m, m.n.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("cryptouser: sendto");
		return -errno;
	}
	len = recv(fd, reply, size, 0);
	if (len < (ssize_t)sizeof(struct nlmsghdr)) {
		perror("cryptouser: recv");
		return -EIO;
	}
	if (((struct nlmsghdr *)reply)->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA((struct nlmsghdr *)reply);

		return e->error;
	}
	return (int)len;
}

int main(int argc, char **argv)
{
	const char *name, *want = "acomp";
	char buf[8192];
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct crypto_user_alg *cru;
	struct rtattr *rta;
	int fd, len, create = 0, found = 0, i = 1;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		create = 1;
		i++;
	}
	if (argc - i < 1 || argc - i > 2) {
		fprintf(stderr, "usage: cryptouser [-n] NAME [TYPE]\n");
		return 2;
	}
	name = argv[i];
	if (argc - i == 2)
		want = argv[i + 1];

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_CRYPTO);
	if (fd < 0) {
		perror("cryptouser: socket(NETLINK_CRYPTO)");
		return 2;
	}
	if (create) {
		len = talk(fd, CRYPTO_MSG_NEWALG, name, buf, sizeof(buf));
		/* -EEXIST: already instantiated, which is as good. */
		if (len < 0 && len != -EEXIST) {
			fprintf(stderr, "cryptouser: NEWALG %s: %s\n", name, strerror(-len));
			return 2;
		}
	}
	len = talk(fd, CRYPTO_MSG_GETALG, name, buf, sizeof(buf));
	if (len < 0) {
		fprintf(stderr, "cryptouser: GETALG %s: %s\n", name, strerror(-len));
		return 2;
	}
	if (n->nlmsg_type != CRYPTO_MSG_GETALG) {
		fprintf(stderr, "cryptouser: unexpected reply type %u\n", n->nlmsg_type);
		return 2;
	}
	cru = NLMSG_DATA(n);
	printf("name=%s driver=%s flags=0x%x async=%s", cru->cru_name,
	       cru->cru_driver_name, cru->cru_flags,
	       cru->cru_flags & CRYPTO_ALG_ASYNC ? "yes" : "no");

	len = n->nlmsg_len - NLMSG_LENGTH(sizeof(*cru));
	for (rta = (struct rtattr *)(cru + 1); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == CRYPTOCFGA_REPORT_ACOMP) {
			struct crypto_report_acomp *r = RTA_DATA(rta);

			printf(" report=acomp type=%.*s", (int)sizeof(r->type), r->type);
			found = !strncmp(r->type, want, sizeof(r->type));
		} else if (rta->rta_type == CRYPTOCFGA_REPORT_COMPRESS) {
			struct crypto_report_comp *r = RTA_DATA(rta);

			printf(" report=compress type=%.*s", (int)sizeof(r->type), r->type);
			found = !strncmp(r->type, want, sizeof(r->type));
		}
	}
	printf("\n");
	close(fd);
	return found ? 0 : 1;
}
