// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the QP-info decoder gets bytes straight from the network,
 * so any input must give 0 or a negative errno with a reason, never a crash.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "exchange.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qp_info info, again;
	uint8_t wire[QP_INFO_WIRE_SIZE];
	const char *why = NULL;
	int ret;

	ret = qp_info_decode_header(data, size, &why);
	assert(ret <= 0 && (ret == 0 || why));
	why = NULL;
	ret = qp_info_decode(data, size, &info, &why);
	assert(ret <= 0 && (ret == 0 || why));
	if (ret == 0) {
		/* what decodes re-encodes to the same bytes and decodes again */
		qp_info_encode(&info, wire);
		assert(qp_info_decode(wire, sizeof(wire), &again, &why) == 0);
		assert(size == sizeof(wire));
	}
	return 0;
}
