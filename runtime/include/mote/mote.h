/* mote/mote.h - the whole public runtime API. */
#ifndef MOTE_MOTE_H
#define MOTE_MOTE_H
#include "mote/types.h"
#include "mote/kernel.h"
#include "mote/program.h"
#include "mote/method.h"
#include "mote/port.h"
#endif
