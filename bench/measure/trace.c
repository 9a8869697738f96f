#include "trace.h"

static const char *const kind_name[] = {
	[EV_TRANSFORM] = "STransform",
	[EV_COLLATE] = "SCollation",
	[EV_BATCH_PREPROC] = "SBatchPreprocessed_",
	[EV_BATCH_QUEUED] = "SBatchQueued_",
	[EV_BATCH_WAIT] = "SBatchWait_",
	[EV_BATCH_CONSUMED] = "SBatchConsumed_",
	[EV_BATCH_ARRIVED] = "SBatchArrived_",
	[EV_BATCH_PINNED] = "SBatchPinned_",
	[EV_GPU_COPY] = "SGpuCopy_",
	[EV_GPU_STEP] = "SGpuStep_",
};

const char *trace_kind_name(unsigned kind)
{
	return kind < sizeof(kind_name) / sizeof(kind_name[0]) ? kind_name[kind] : NULL;
}
