import type { InterviewSession } from './interview-session.entity.js';

/** A session as `GET /v1/sessions/:id` returns it, and as its events carry it. */
export interface SessionView {
  id: string;
  object: 'session';
  livemode: boolean;
  status: string;
  candidate_name: string;
  created_at: string;
  completed_at: string | null;
}

/**
 * The one public shape of a session: given to the module as the resource's `toJSON`, and used by
 * the publisher, so that an event's `data.object` is exactly what the API returns for that id.
 */
export function toSessionView(session: InterviewSession): SessionView {
  return {
    id: session.id,
    object: 'session',
    livemode: session.livemode,
    status: session.status,
    candidate_name: session.candidateName,
    created_at: session.createdAt.toISOString(),
    completed_at: session.completedAt ? session.completedAt.toISOString() : null,
  };
}
