// SPDX-License-Identifier: MIT
/*
 * A peer that speaks the protocol of the manual's RDMA_RC_example, for
 * the rig's scenario of rdma_rc_example --manual-peer (tests/rxe/
 * peer_program.sh). Written here from the facts of that protocol, not from
 * the manual's code:
 *
 *   - the connection data is a packed struct of 34 bytes, in network byte
 *     order: buffer address u64, rkey u32, QP number u32, LID u16, GID 16
 *     bytes (zeros without -g); each side writes its own, then reads;
 *   - the QP: RC, PSN 0 both ways, path MTU 256, one READ in flight each
 *     way, min RNR timer 0x12, ack timeout 0x12, retry count 6, RNR retry
 *     0, a GRH with hop limit 1 when -g is given; the client posts its
 *     receive before RTR;
 *   - the buffer holds 16 bytes ("SEND operation " and its '\0'), which is
 *     what every SEND, READ and WRITE moves;
 *   - one-byte syncs, each side writing the byte then reading the other's:
 *     'Q' once both QPs are in RTS; the server SENDs, the client receives;
 *     'R' once the server's buffer holds the READ text; the client READs,
 *     then WRITEs its text; 'W'; the server prints its buffer.
 *
 *   manual_peer [-d DEV] [-i PORT] [-g GID_INDEX] [-p TCP_PORT] [SERVER]
 *
 * It prints the manual's lines and "test result is 0", or one line naming
 * what failed and exits 1. Every wait ends within 10 s.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MSG_SIZE  16
#define WAIT_MS	  10000
#define DATA_SIZE 34

static const char send_text[MSG_SIZE] = "SEND operation ";
static const char read_text[MSG_SIZE] = "RDMA read operat";
static const char write_text[MSG_SIZE] = "RDMA write opera";

struct peer {
	int sock;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char buf[MSG_SIZE + 1]; /* registered: the first 16; then a '\0' */
	uint64_t remote_addr;
	uint32_t remote_rkey;
};

static int fail(const char *what, int err)
{
	fprintf(stderr, "manual_peer: %s: %s\n", what, strerror(err));
	return -1;
}

static int wait_fd(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};
	int n = poll(&p, 1, WAIT_MS);

	if (n == 0)
		errno = ETIMEDOUT;
	return n > 0 ? 0 : -1;
}

/* Write @len bytes of @out, then read @len bytes into @in. */
static int sync_data(int sock, const void *out, void *in, size_t len)
{
	size_t done = 0;
	ssize_t n;

	if (write(sock, out, len) != (ssize_t)len)
		return fail("write to the peer", errno ? errno : EIO);
	while (done < len) {
		if (wait_fd(sock, POLLIN))
			return fail("read from the peer", errno);
		n = read(sock, (char *)in + done, len - done);
		if (n <= 0)
			return fail("read from the peer",
				    n ? errno : ECONNRESET);
		done += (size_t)n;
	}
	return 0;
}

static int sync_byte(int sock, char byte)
{
	char theirs = 0;

	if (sync_data(sock, &byte, &theirs, 1))
		return -1;
	return theirs == byte ? 0 : fail("sync with the peer", EPROTO);
}

/* @text as a number from @min to @max, or -1. */
static long number(const char *text, long min, long max)
{
	char *end = NULL;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno || end == text || *end || value < min || value > max)
		return -1;
	return value;
}

static int tcp_connect(const char *server, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	int fd = -1, tries;

	if (getaddrinfo(server, port, &hints, &ai))
		return fail("resolve the server", EINVAL);
	for (tries = 0; tries < 50 && fd < 0; tries++) {
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			close(fd);
			fd = -1;
			nanosleep(&(struct timespec){.tv_nsec = 200000000},
				  NULL);
		}
	}
	freeaddrinfo(ai);
	return fd >= 0 ? fd : fail("connect to the server", ECONNREFUSED);
}

static int tcp_accept(const char *port)
{
	struct sockaddr_in6 addr = {.sin6_family = AF_INET6};
	long number_of_port = number(port, 1, UINT16_MAX);
	int one = 1, lfd, fd;

	if (number_of_port < 0)
		return fail("the TCP port", EINVAL);
	addr.sin6_port = htons((uint16_t)number_of_port);

	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd < 0)
		return fail("socket", errno);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(lfd, 1) || wait_fd(lfd, POLLIN)) {
		close(lfd);
		return fail("wait for the client", errno);
	}
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	return fd >= 0 ? fd : fail("accept", errno);
}

static int open_device(struct peer *p, const char *dev)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	for (i = 0; list && list[i] && !p->ctx; i++)
		if (!dev || !strcmp(ibv_get_device_name(list[i]), dev))
			p->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return p->ctx ? 0 : fail("open the device", ENODEV);
}

static int create_resources(struct peer *p)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};

	p->pd = ibv_alloc_pd(p->ctx);
	if (p->pd)
		p->mr = ibv_reg_mr(p->pd, p->buf, MSG_SIZE,
				   IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_WRITE);
	if (p->mr)
		p->cq = ibv_create_cq(p->ctx, 1, NULL, NULL, 0);
	if (!p->cq)
		return fail("create PD, MR or CQ", errno);
	attr.send_cq = attr.recv_cq = p->cq;
	p->qp = ibv_create_qp(p->pd, &attr);
	return p->qp ? 0 : fail("create the QP", errno);
}

/* Exchange the manual's struct; leave the peer's QP number, LID, GID. */
static int exchange(struct peer *p, int port, int gid_idx, uint32_t *qpn,
		    uint16_t *lid, union ibv_gid *gid)
{
	uint8_t out[DATA_SIZE] = {0}, in[DATA_SIZE];
	struct ibv_port_attr pattr;
	union ibv_gid mine = {0};
	uint64_t addr = htobe64((uintptr_t)p->buf);
	uint32_t rkey = htonl(p->mr->rkey), qp_num = htonl(p->qp->qp_num);
	uint16_t my_lid;

	if (ibv_query_port(p->ctx, (uint8_t)port, &pattr))
		return fail("query the port", errno);
	if (gid_idx >= 0 &&
	    ibv_query_gid(p->ctx, (uint8_t)port, gid_idx, &mine))
		return fail("query the GID", errno);
	my_lid = htons(pattr.lid);
	memcpy(out, &addr, 8);
	memcpy(out + 8, &rkey, 4);
	memcpy(out + 12, &qp_num, 4);
	memcpy(out + 16, &my_lid, 2);
	memcpy(out + 18, mine.raw, 16);
	if (sync_data(p->sock, out, in, DATA_SIZE))
		return -1;
	memcpy(&addr, in, 8);
	memcpy(&rkey, in + 8, 4);
	memcpy(&qp_num, in + 12, 4);
	memcpy(&my_lid, in + 16, 2);
	memcpy(gid->raw, in + 18, 16);
	p->remote_addr = be64toh(addr);
	p->remote_rkey = ntohl(rkey);
	*qpn = ntohl(qp_num);
	*lid = ntohs(my_lid);
	printf("Remote address = 0x%llx\nRemote rkey = 0x%x\nRemote QP number = 0x%x\n",
	       (unsigned long long)p->remote_addr, p->remote_rkey, *qpn);
	return 0;
}

static struct ibv_sge whole_buffer(const struct peer *p)
{
	return (struct ibv_sge){.addr = (uintptr_t)p->buf,
				.length = MSG_SIZE,
				.lkey = p->mr->lkey};
}

static int post(struct peer *p, enum ibv_wr_opcode op)
{
	struct ibv_sge sge = whole_buffer(p);
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.wr.rdma.remote_addr = p->remote_addr;
	wr.wr.rdma.rkey = p->remote_rkey;
	return ibv_post_send(p->qp, &wr, &bad) ? fail("post", errno) : 0;
}

static int post_recv(struct peer *p)
{
	struct ibv_sge sge = whole_buffer(p);
	struct ibv_recv_wr wr = {.sg_list = &sge, .num_sge = 1}, *bad;

	return ibv_post_recv(p->qp, &wr, &bad) ? fail("post RECV", errno) : 0;
}

static int poll_one(struct peer *p)
{
	struct timespec start, now;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		n = ibv_poll_cq(p->cq, 1, &wc);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (n == 0 && (now.tv_sec - start.tv_sec) * 1000 < WAIT_MS);
	if (n <= 0)
		return fail("poll the CQ", n ? EIO : ETIMEDOUT);
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "manual_peer: completion: %s\n",
			ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

static int connect_qp(struct peer *p, int port, int gid_idx, bool client)
{
	struct ibv_qp_attr init = {.qp_state = IBV_QPS_INIT,
				   .port_num = (uint8_t)port,
				   .qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
						      IBV_ACCESS_REMOTE_READ |
						      IBV_ACCESS_REMOTE_WRITE};
	struct ibv_qp_attr rtr = {.qp_state = IBV_QPS_RTR,
				  .path_mtu = IBV_MTU_256,
				  .max_dest_rd_atomic = 1,
				  .min_rnr_timer = 0x12,
				  .ah_attr = {.port_num = (uint8_t)port}};
	struct ibv_qp_attr rts = {.qp_state = IBV_QPS_RTS,
				  .timeout = 0x12,
				  .retry_cnt = 6,
				  .max_rd_atomic = 1};
	uint32_t qpn = 0;
	uint16_t lid = 0;
	union ibv_gid gid = {0};

	if (exchange(p, port, gid_idx, &qpn, &lid, &gid))
		return -1;
	rtr.dest_qp_num = qpn;
	rtr.ah_attr.dlid = lid;
	if (gid_idx >= 0) {
		rtr.ah_attr.is_global = 1;
		rtr.ah_attr.grh.dgid = gid;
		rtr.ah_attr.grh.sgid_index = (uint8_t)gid_idx;
		rtr.ah_attr.grh.hop_limit = 1;
	}
	if (ibv_modify_qp(p->qp, &init,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return fail("modify the QP to INIT", errno);
	if (client && post_recv(p))
		return -1;
	if (ibv_modify_qp(p->qp, &rtr,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return fail("modify the QP to RTR", errno);
	if (ibv_modify_qp(p->qp, &rts,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		return fail("modify the QP to RTS", errno);
	return sync_byte(p->sock, 'Q');
}

static int run_server(struct peer *p)
{
	memcpy(p->buf, send_text, MSG_SIZE);
	if (post(p, IBV_WR_SEND) || poll_one(p))
		return -1;
	memcpy(p->buf, read_text, MSG_SIZE);
	if (sync_byte(p->sock, 'R') || sync_byte(p->sock, 'W'))
		return -1;
	printf("Contents of server buffer: '%s'\n", p->buf);
	return 0;
}

static int run_client(struct peer *p)
{
	if (poll_one(p))
		return -1;
	printf("Message is: '%s'\n", p->buf);
	if (sync_byte(p->sock, 'R') || post(p, IBV_WR_RDMA_READ) || poll_one(p))
		return -1;
	printf("Contents of server's buffer: '%s'\n", p->buf);
	memcpy(p->buf, write_text, MSG_SIZE);
	printf("Now replacing it with: '%s'\n", p->buf);
	if (post(p, IBV_WR_RDMA_WRITE) || poll_one(p))
		return -1;
	return sync_byte(p->sock, 'W');
}

static void destroy(struct peer *p)
{
	if (p->qp)
		ibv_destroy_qp(p->qp);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->ctx)
		ibv_close_device(p->ctx);
	if (p->sock >= 0)
		close(p->sock);
}

int main(int argc, char **argv)
{
	static struct peer p = {.sock = -1};
	const char *dev = NULL, *tcp_port = "19875";
	int port = 1, gid_idx = -1, c, ret;

	while ((c = getopt(argc, argv, "d:i:g:p:")) != -1) {
		long value = -1;

		if (c == 'd')
			dev = optarg;
		else if (c == 'p')
			tcp_port = optarg;
		else if (c == 'i' && (value = number(optarg, 1, UINT8_MAX)) > 0)
			port = (int)value;
		else if (c == 'g' &&
			 (value = number(optarg, 0, INT32_MAX)) >= 0)
			gid_idx = (int)value;
		else {
			fprintf(stderr, "manual_peer: invalid option -%c\n",
				optopt ? optopt : c);
			return 2;
		}
	}
	p.sock = optind < argc ? tcp_connect(argv[optind], tcp_port)
			       : tcp_accept(tcp_port);
	ret = p.sock < 0 || open_device(&p, dev) || create_resources(&p) ||
	      connect_qp(&p, port, gid_idx, optind < argc);
	if (!ret)
		ret = optind < argc ? run_client(&p) : run_server(&p);
	destroy(&p);
	printf("\ntest result is %d\n", ret ? 1 : 0);
	return ret ? 1 : 0;
}
