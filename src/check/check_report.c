// SPDX-License-Identifier: MIT
/* The check lines, the verdict, the JSON file: pure, unit tested. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "check_priv.h"
#include "extras/json.h"

void check_report_init(struct check_report *r, FILE *out)
{
	r->count = 0;
	r->feature_count = 0;
	r->out = out;
}

const char *check_status_name(enum check_status status)
{
	switch (status) {
	case CHECK_PASS:
		return "PASS";
	case CHECK_WARN:
		return "WARN";
	case CHECK_FAIL:
		break;
	}
	return "FAIL";
}

void check_print_item(const struct check_item *item, FILE *out)
{
	fprintf(out, "%s %-11s %s", check_status_name(item->status), item->name,
		item->value);
	if (item->fix[0])
		fprintf(out, "; fix: %s", item->fix);
	fputc('\n', out);
}

void check_add(struct check_report *r, const char *name,
	       enum check_status status, const char *fix, const char *fmt, ...)
{
	struct check_item item = {.status = status};
	va_list ap;

	snprintf(item.name, sizeof(item.name), "%s", name);
	va_start(ap, fmt);
	vsnprintf(item.value, sizeof(item.value), fmt, ap);
	va_end(ap);
	if (fix)
		snprintf(item.fix, sizeof(item.fix), "%s", fix);
	if (r->out)
		check_print_item(&item, r->out);
	if (r->count < CHECK_ITEMS_MAX)
		r->items[r->count++] = item;
}

void check_add_feature(struct check_report *r, const char *name, bool present,
		       const char *fmt, ...)
{
	struct check_feature f = {.present = present};
	va_list ap;

	snprintf(f.name, sizeof(f.name), "%s", name);
	va_start(ap, fmt);
	vsnprintf(f.value, sizeof(f.value), fmt, ap);
	va_end(ap);
	if (r->out)
		fprintf(r->out, "%s %-11s %s\n", present ? "HAS " : "NONE",
			f.name, f.value);
	if (r->feature_count < CHECK_FEATURES_MAX)
		r->features[r->feature_count++] = f;
}

static size_t count_status(const struct check_report *r,
			   enum check_status status)
{
	size_t i, n = 0;

	for (i = 0; i < r->count; i++)
		if (r->items[i].status == status)
			n++;
	return n;
}

bool check_passed(const struct check_report *r)
{
	return count_status(r, CHECK_FAIL) == 0;
}

void check_print_verdict(const struct check_report *r, const char *scope,
			 FILE *out)
{
	size_t warnings = count_status(r, CHECK_WARN);
	const char *sep = "";
	size_t i;

	if (check_passed(r)) {
		fprintf(out,
			"verdict: PASS: %s can do RDMA with these options (%zu checks, warnings: %zu)\n",
			scope, r->count, warnings);
		return;
	}
	fprintf(out,
		"verdict: FAIL: %s cannot do RDMA with these options (failed:",
		scope);
	for (i = 0; i < r->count; i++) {
		if (r->items[i].status != CHECK_FAIL)
			continue;
		fprintf(out, "%s %s", sep, r->items[i].name);
		sep = ",";
	}
	fprintf(out, "; warnings: %zu)\n", warnings);
}

void check_write_json(const struct check_report *r, const char *scope,
		      FILE *out)
{
	size_t i;

	fputs("{\"verdict\": ", out);
	json_write_string(out, check_passed(r) ? "PASS" : "FAIL");
	fputs(", \"scope\": ", out);
	json_write_string(out, scope);
	fputs(", \"checks\": [", out);
	for (i = 0; i < r->count; i++) {
		const struct check_item *item = &r->items[i];

		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		json_write_string(out, item->name);
		fputs(", \"status\": ", out);
		json_write_string(out, check_status_name(item->status));
		fputs(", \"value\": ", out);
		json_write_string(out, item->value);
		fputs(", \"fix\": ", out);
		if (item->fix[0])
			json_write_string(out, item->fix);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("\n], \"features\": [", out);
	for (i = 0; i < r->feature_count; i++) {
		const struct check_feature *f = &r->features[i];

		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		json_write_string(out, f->name);
		fprintf(out, ", \"present\": %s, \"value\": ",
			f->present ? "true" : "false");
		json_write_string(out, f->value);
		fputc('}', out);
	}
	fputs("\n]}\n", out);
}

int check_save_json(const struct check_report *r, const char *scope,
		    const char *path)
{
	FILE *f;
	int ret = json_file_open(path, &f);

	if (ret)
		return ret;
	check_write_json(r, scope, f);
	return json_file_close(f, path);
}

const char *check_op_failure(int err, const char **fix)
{
	*fix = NULL;
	switch (err) {
	case -EHOSTUNREACH:
		*fix = "the GIDs do not reach each other: check that each host answers a ping to the other's GID address, and that both use GIDs of one RoCE version (-g)";
		return "retry exceeded: no acknowledgement came back, no path between the GIDs";
	case -EAGAIN:
		*fix = "post the receive before the peer sends (the check posts its own: run the same version on both sides)";
		return "RNR retry exceeded: the receiver had no receive posted";
	case -EACCES:
		*fix = "run the same version of the program on both sides: the peer refused the rkey or the access rights";
		return "remote access error: the peer's memory region refused the access";
	case -ETIMEDOUT:
		*fix = "check that each host reaches the other's GID address (ping it); if it does, raise -t or look at the peer";
		return "no completion within the timeout (-t): the packets do not arrive (no path between the GIDs), or the peer is stuck or gone";
	case -ECONNRESET:
	case -EPIPE:
	case -ENOTCONN:
		return "the peer closed the TCP connection: see its own lines";
	case -EIO:
		return "the completion failed (its status is on the line above, on stderr)";
	}
	return strerror(-err);
}

/*
 * ibv_port_attr's active_width and active_speed are codes, not numbers:
 * the lanes and each lane's signalling rate in Gb/s, as ibv_devinfo
 * prints them (FDR10 and QDR both say 10 Gb/s a lane).
 */
static unsigned width_lanes(uint8_t width)
{
	switch (width) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

static double speed_gbps(uint8_t speed)
{
	switch (speed) {
	case 1:
		return 2.5;
	case 2:
		return 5.0;
	case 4:
	case 8:
		return 10.0;
	case 16:
		return 14.0;
	case 32:
		return 25.0;
	case 64:
		return 50.0;
	case 128:
		return 100.0;
	default:
		return 0.0;
	}
}

int check_port_rate(uint8_t width, uint8_t speed, char *text, size_t len)
{
	unsigned lanes = width_lanes(width);
	double lane = speed_gbps(speed);

	if (!lanes || lane == 0.0)
		return snprintf(text, len,
				"rate unknown (width code %u, speed code %u)",
				width, speed);
	return snprintf(text, len, "%g Gb/s (%uX %g Gb/s)", lanes * lane, lanes,
			lane);
}
