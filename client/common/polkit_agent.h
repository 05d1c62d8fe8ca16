/* A text polkit agent for the duration of a write, as systemctl and
 * hostnamectl start one: with ALLOW_INTERACTIVE_AUTHORIZATION set, polkit
 * can only ask for a password if an agent answers, and on a bare console
 * (ssh, a serial line to a Jetson) there is none. */
#pragma once

#include <glib.h>

#include "jetsonctl.h"

/* Starts pkttyagent (--fallback: a desktop agent, if any, keeps priority)
 * when jetsonctl may ask for a password on a terminal, and waits until it
 * is registered. Returns its PID, or 0 if none was started. */
GPid jc_polkit_agent_start(const jc_ctx *c);
void jc_polkit_agent_stop(GPid pid);
