import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The installation: the one database the module runs on, and the processes on it. Its one row
 * holds the id that names the installation's delivery queue in Redis.
 */
@Entity({ name: 'interview_installation' })
export class InstallationEntity {
  /** Always 1: processes that first start together all insert this key, and one row wins. */
  @PrimaryColumn({ type: 'integer' })
  singleton!: number;

  @Column({ type: 'varchar', length: 40 })
  id!: string;
}
