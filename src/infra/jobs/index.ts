export {
  createJobRunner,
  describeJobError,
  failedAttemptRecord,
  fairKeyOfAccount,
  PermanentJobError,
  type EnqueueOptions,
  type FailedAttemptRecord,
  type JobFailure,
  type JobKind,
  type JobLog,
  type JobQueue,
  type JobRunner,
  type JobRunnerDeps,
  type RunningJob,
} from './job-runner.js';
export { createJobMetrics, type JobMetrics } from './job-metrics.js';
export { listJobs, type JobClaim, type NewJob } from './jobs.repo.js';
