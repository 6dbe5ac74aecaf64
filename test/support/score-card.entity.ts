import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ResourceDefinition } from '../../lib/index.js';

/**
 * A host entity whose columns are not all text (a uuid id, an integer, a boolean, decimals, floats,
 * a timestamp, a date, an enum, a time, JSON), exposed under /v1/score_cards: filter values must fit their column.
 */
@Entity({ name: 'host_score_cards' })
// The indexes that list one stage, or one review time, in page order: those filters are read through them.
@Index(['accountId', 'livemode', 'stage', 'createdAt', 'id'])
@Index(['accountId', 'livemode', 'reviewedAt', 'createdAt', 'id'])
// Partial: it lists high scores only, so the score filter is not read through it.
@Index(['accountId', 'livemode', 'score', 'createdAt', 'id'], { where: 'score > 90' })
export class ScoreCardEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ name: 'reviewer_id', type: 'uuid' })
  reviewerId!: string;

  @Column({ type: 'integer' })
  score!: number;

  @Column({ type: 'boolean' })
  archived!: boolean;

  @Column({ type: 'decimal', precision: 4, scale: 1 })
  rating!: string;

  /** A decimal without precision: PostgreSQL's numeric reads 131072 digits before the point. */
  @Column({ type: 'decimal' })
  total!: string;

  @Column({ type: 'double precision' })
  weight!: number;

  /** A 4-byte float on PostgreSQL. */
  @Column({ type: 'real' })
  ratio!: number;

  /** A type no filter reads. */
  @Column({ name: 'starts_at', type: 'time' })
  startsAt!: string;

  @Column({ type: 'simple-enum', enum: ['draft', 'final'] })
  stage!: 'draft' | 'final';

  @Column({ name: 'reviewed_at' })
  reviewedAt!: Date;

  @Column({ name: 'reviewed_on', type: 'date', nullable: true })
  reviewedOn!: string | null;

  @Column({ type: 'simple-json', nullable: true })
  notes!: string[] | null;

  /** Longer than a list cursor carries: no resource can take it as its id. */
  @Column({ name: 'external_ref', type: 'varchar', length: 1000, nullable: true })
  externalRef!: string | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}

/** The score cards as a resource, filterable on every kind of column but the JSON and time ones. */
export const SCORE_CARDS: ResourceDefinition<ScoreCardEntity> = {
  path: 'score_cards',
  entity: ScoreCardEntity,
  object: 'score_card',
  scope: 'results:read',
  filters: [
    'reviewerId',
    'score',
    'archived',
    'rating',
    'total',
    'weight',
    'ratio',
    'stage',
    'reviewedAt',
    'reviewedOn',
  ],
};
