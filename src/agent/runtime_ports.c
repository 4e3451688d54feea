/* runtime_ports.c - the host ports of the process runtime: each
 * declared port gets one (its hostPort, the one its status reports at a
 * live restore, else one of the agent's range, portalloc.h), checked
 * against the host's listeners; with the range exhausted the container
 * waits in PORT_WAIT. In the default range the round-robin begins at a
 * random port. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "log.h"
#include "runtime_int.h"
#include "xalloc.h"

/* The OS check of the port allocator (portalloc.h): something on the
 * host listens on the port, at any address. A server sets SO_REUSEADDR,
 * and then only a listener (not a connection in TIME_WAIT) is in its
 * way: the check does the same. */
static bool
port_busy(void *arg, int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	bool busy;

	(void)arg;
	if (fd < 0)
		return false; /* cannot tell: the allocator's table decides */
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	sa.sin_port = htons((uint16_t)port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	busy = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 &&
	       errno == EADDRINUSE;
	close(fd);
	return busy;
}

/* Host ports still missing (0) of a container, from the agent's range.
 * Returns false if the range has none left. */
static bool
fill_ports(struct rcont *c)
{
	struct runtime *rt = c->pod->rt;
	size_t i;

	for (i = 0; i < c->ports.n; i++)
		if (c->ports.v[i].host_port == 0 &&
		    (c->ports.v[i].host_port = portalloc_get(
			 &rt->ports, rt->cfg.now(), port_busy, NULL)) == 0)
			return false;
	return true;
}

/* Host ports for the declared ports: a declared hostPort, else the one
 * prev reports (a pod being re-adopted keeps its ports), else one from
 * the agent's range (fill_ports; 0 while the range is exhausted). */
void
ports_alloc(struct rcont *c, const struct container_status *prev)
{
	struct runtime *rt = c->pod->rt;
	size_t i, j;

	for (i = 0; i < c->spec->ports.n; i++) {
		const struct container_port *d = &c->spec->ports.v[i];
		struct container_port *p =
		    anylist_push((struct anylist *)&c->ports, sizeof(*p));

		p->name = xstrdup(d->name);
		p->container_port = d->container_port;
		p->protocol = xstrdup(d->protocol ? d->protocol : "TCP");
		p->host_ip = xstrdup(rt_address(rt));
		p->host_port = d->host_port;
		for (j = 0; prev && !p->host_port && j < prev->ports.n; j++)
			if (prev->ports.v[j].container_port ==
			    d->container_port)
				p->host_port = prev->ports.v[j].host_port;
		if (p->host_port)
			portalloc_hold(&rt->ports, (int)p->host_port);
	}
	fill_ports(c);
}

/* The host port behind a probe's port: a declared port by number or
 * name; an undeclared number is used as it is. */
int
ports_host(const struct rcont *c, const struct intstr *port)
{
	size_t i;

	for (i = 0; i < c->ports.n; i++) {
		const struct container_port *p = &c->ports.v[i];

		if ((port->type == INTSTR_INT &&
		     p->container_port == port->ival) ||
		    (port->type == INTSTR_STRING && p->name &&
		     !strcmp(p->name, port->sval)))
			return (int)p->host_port;
	}
	return port->type == INTSTR_INT ? (int)port->ival : 0;
}

/* "P1,P2": a container's host ports, as the journal records them. */
void
ports_text(const struct rcont *c, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < c->ports.n; i++)
		strbuf_addf(sb, "%s%lld", i ? "," : "",
			    (long long)c->ports.v[i].host_port);
}

/* Ports of the range that another process on the host listens on now.
 * This runs before every start, when no process of this container runs
 * (a first start, a restart after an exit or a failed start, a container
 * whose process died while the agent was away): a listener on one of
 * its ports is someone else's. So it was taken between the check of
 * portalloc_get and the bind of this container's process (a second
 * agent given the same --host-port-range handed it out too and its
 * process bound first; this one exited on EADDRINUSE), or since. The
 * port is left to its holder (released, and quarantined like any
 * other) and another one is picked, which the status and the Endpoints
 * then report; the Event says so. A declared hostPort is kept: the
 * scheduler keeps two pods that declare it apart (NodePorts), and a
 * program holding it makes the start fail, as with Kubernetes. */
static void
repick_taken(struct rcont *c)
{
	struct runtime *rt = c->pod->rt;
	size_t i;

	for (i = 0; i < c->ports.n && i < c->spec->ports.n; i++) {
		struct container_port *p = &c->ports.v[i];
		int was = (int)p->host_port;

		if (c->spec->ports.v[i].host_port || was == 0 ||
		    !port_busy(NULL, was))
			continue;
		portalloc_put(&rt->ports, was, rt->cfg.now());
		p->host_port =
		    portalloc_get(&rt->ports, rt->cfg.now(), port_busy, NULL);
		log_warn("agent: %s/%s container %s: host port %d is in use by "
			 "another process: %s %lld",
			 c->pod->pod.metadata.namespace,
			 c->pod->pod.metadata.name, c->spec->name, was,
			 p->host_port ? "now" : "none free yet, was",
			 (long long)(p->host_port ? p->host_port : was));
		rt_events_port_moved(c, p, was, (int)p->host_port);
	}
}

/* Host ports first: a port someone else took is replaced; with the range
 * exhausted the container waits (and tries again) instead of starting on
 * a port someone else holds. */
bool
ports_ready(struct rcont *c)
{
	struct runtime *rt = c->pod->rt;
	char msg[300];

	repick_taken(c);
	if (fill_ports(c))
		return true;
	snprintf(msg, sizeof(msg),
		 "no free host port in %d-%d: %zu held by pods, the other "
		 "%zu released less than %llds ago or in use on the host",
		 rt->ports.lo, rt->ports.hi, portalloc_held(&rt->ports),
		 (size_t)(rt->ports.hi - rt->ports.lo + 1) -
		     portalloc_held(&rt->ports),
		 (long long)(rt->ports.quarantine / 1000));
	log_warn("agent: %s/%s container %s: CreateContainerError: %s",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 c->spec->name, msg);
	cont_step(c, &(struct ctr_event){.type = CEV_NO_PORT, .message = msg});
	return false;
}

static void
quarantine_port(void *arg, int port)
{
	struct runtime *rt = arg;

	portalloc_quarantine(&rt->ports, port, rt->cfg.now());
}

/* Ports of the kernel's ephemeral range can be taken by any outgoing
 * connection: say so if the agent's range overlaps it. */
static void
warn_ephemeral(const struct portalloc *pa)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	int lo, hi;

	if (f == NULL)
		return;
	if (fscanf(f, "%d %d", &lo, &hi) == 2 && pa->lo <= hi && lo <= pa->hi)
		log_warn("agent: host port range %d-%d overlaps the kernel's "
			 "ephemeral range %d-%d: outgoing connections may take "
			 "its ports",
			 pa->lo, pa->hi, lo, hi);
	fclose(f);
}

void
runtime_reserve(struct runtime *rt, const struct pod *p)
{
	size_t i, j;

	for (i = 0; i < p->status.container_statuses.n; i++) {
		const struct container_status *cs =
		    &p->status.container_statuses.v[i];

		for (j = 0; j < cs->ports.n; j++)
			portalloc_hold(&rt->ports,
				       (int)cs->ports.v[j].host_port);
	}
}

/* The agent's host port range (the configured one, else the default),
 * then the ports of the last run's starts: the pods' statuses hold the
 * ones in use (runtime_reserve); the others are not handed out at once. */
void
rt_ports_init(struct runtime *rt)
{
	const struct runtime_config *cfg = &rt->cfg;

	if (portalloc_init(&rt->ports,
			   cfg->port_lo ? cfg->port_lo : PORTALLOC_DEFAULT_LO,
			   cfg->port_hi ? cfg->port_hi : PORTALLOC_DEFAULT_HI,
			   PORTALLOC_DEFAULT_QUARANTINE))
		portalloc_init(&rt->ports, PORTALLOC_DEFAULT_LO,
			       PORTALLOC_DEFAULT_HI,
			       PORTALLOC_DEFAULT_QUARANTINE);
	if (cfg->port_lo == 0) {
		/* The default range: the round-robin begins at a random port,
		 * as Kubernetes' NodePort allocator picks at random. Two agents
		 * on one host (a test suite's daemons side by side) otherwise
		 * hand out the same ports in the same order, and a port both
		 * find free at the same moment goes to two processes, of which
		 * one never binds it. */
		unsigned v = (unsigned)getpid() ^ (unsigned)time(NULL);

		if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
			v ^= (unsigned)clock();
		rt->ports.next =
		    rt->ports.lo +
		    (int)(v % (unsigned)(rt->ports.hi - rt->ports.lo + 1));
	}
	warn_ephemeral(&rt->ports);
	if (pidlog_ports(cfg->log_dir, quarantine_port, rt))
		log_warn("agent: cannot read %s/pids", cfg->log_dir);
}

void
ports_release(struct rcont *c)
{
	struct runtime *rt = c->pod->rt;
	size_t k;

	for (k = 0; k < c->ports.n; k++)
		portalloc_put(&rt->ports, (int)c->ports.v[k].host_port,
			      rt->cfg.now());
}
