/* table.c - the text helpers every kind's table uses (table.h): AGE,
 * headers, labels and selectors as kubectl prints them. */
#include <stdio.h>
#include <string.h>

#include "table.h"

/* ---- text helpers ---- */

/* duration.HumanDuration (apimachinery/pkg/util/duration): seconds up to
 * 2 minutes, then minutes and seconds below 10 minutes ("2m3s"), whole
 * minutes below 3 hours, hours and minutes below 8 hours ("5h30m"),
 * hours below 2 days, days and hours below 8 days ("3d4h"), days below
 * 2 years, then years and days below 8 years, then years.
 *
 * Examples: 90 s "90s", 125 s "2m5s", 200 min "3h20m", 50 h "2d2h",
 * 400 days "400d". An unset time is "<unknown>" (kubectl's
 * translateTimestampSince); less than 2 s in the future reads "0s"
 * (clock skew between two hosts), further is "<invalid>". Seconds are
 * truncated toward zero, as Go's int(d.Seconds()) does. */
void
columns_age(dtime since, dtime now, char *buf, size_t len)
{
	int64_t d = now - since, s, m, h;

	if (since == 0) {
		snprintf(buf, len, "<unknown>");
		return;
	}
	s = d / 1000;
	if (s < -1) {
		snprintf(buf, len, "<invalid>");
		return;
	}
	if (s < 0)
		s = 0;
	if (s < 120) {
		snprintf(buf, len, "%llds", (long long)s);
		return;
	}
	m = s / 60;
	if (m < 10) {
		if (s % 60 == 0)
			snprintf(buf, len, "%lldm", (long long)m);
		else
			snprintf(buf, len, "%lldm%llds", (long long)m,
				 (long long)(s % 60));
		return;
	}
	if (m < 180) {
		snprintf(buf, len, "%lldm", (long long)m);
		return;
	}
	h = m / 60;
	if (h < 8) {
		if (m % 60 == 0)
			snprintf(buf, len, "%lldh", (long long)h);
		else
			snprintf(buf, len, "%lldh%lldm", (long long)h,
				 (long long)(m % 60));
	} else if (h < 48) {
		snprintf(buf, len, "%lldh", (long long)h);
	} else if (h < 24 * 8) {
		if (h % 24 == 0)
			snprintf(buf, len, "%lldd", (long long)(h / 24));
		else
			snprintf(buf, len, "%lldd%lldh", (long long)(h / 24),
				 (long long)(h % 24));
	} else if (h < 24 * 365 * 2) {
		snprintf(buf, len, "%lldd", (long long)(h / 24));
	} else if (h < 24 * 365 * 8) {
		int64_t dy = (h / 24) % 365;

		if (dy == 0)
			snprintf(buf, len, "%lldy", (long long)(h / 24 / 365));
		else
			snprintf(buf, len, "%lldy%lldd",
				 (long long)(h / 24 / 365), (long long)dy);
	} else {
		snprintf(buf, len, "%lldy", (long long)(h / 24 / 365));
	}
}

/* A column's name as a header: ASCII upper case, "Up-to-date" ->
 * "UP-TO-DATE", cut to fit len with its NUL. */
void
columns_header(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; len && name[i] && i + 1 < len; i++)
		buf[i] = name[i] >= 'a' && name[i] <= 'z'
			     ? (char)(name[i] - 'a' + 'A')
			     : name[i];
	if (len)
		buf[i] = '\0';
}

/* --show-labels: "app=web,tier=front" in key order, "<none>" if none. */
void
columns_labels(const struct strmap *m, struct strbuf *sb)
{
	size_t i;

	if (m->n == 0) {
		strbuf_addstr(sb, "<none>");
		return;
	}
	for (i = 0; i < m->n; i++)
		strbuf_addf(sb, "%s%s=%s", i ? "," : "", m->v[i].key,
			    m->v[i].value);
}

/* The SELECTOR cell: matchLabels first, then the expressions in their
 * order. Example: {matchLabels {app: web}, matchExpressions
 * [{tier In [a, b]}, {canary DoesNotExist}]} prints
 * "app=web,tier in (a,b),!canary". NULL or empty prints "<none>". */
void
columns_selector(const struct label_selector *s, struct strbuf *sb)
{
	size_t start = sb->len, i, j;

	if (s == NULL) {
		strbuf_addstr(sb, "<none>");
		return;
	}
	for (i = 0; i < s->match_labels.n; i++)
		strbuf_addf(sb, "%s%s=%s", i ? "," : "",
			    s->match_labels.v[i].key,
			    s->match_labels.v[i].value);
	for (i = 0; i < s->match_expressions.n; i++) {
		const struct selector_req *r = &s->match_expressions.v[i];
		const char *op = r->operator? r->operator: "";

		if (sb->len > start)
			strbuf_addch(sb, ',');
		if (!strcmp(op, "Exists")) {
			strbuf_addstr(sb, r->key);
		} else if (!strcmp(op, "DoesNotExist")) {
			strbuf_addf(sb, "!%s", r->key);
		} else {
			strbuf_addf(sb, "%s %s (", r->key,
				    !strcmp(op, "In") ? "in" : "notin");
			for (j = 0; j < r->values.n; j++)
				strbuf_addf(sb, "%s%s", j ? "," : "",
					    r->values.v[j]);
			strbuf_addch(sb, ')');
		}
	}
	if (sb->len == start)
		strbuf_addstr(sb, "<none>");
}

/* " + N more..." after COLUMNS_MAX_SHOWN items, as kubectl. */
void
columns_more(size_t shown, size_t total, struct strbuf *sb)
{
	if (total > shown)
		strbuf_addf(sb, " + %zu more...", total - shown);
}
