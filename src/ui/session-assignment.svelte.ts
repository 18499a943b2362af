import type { SessionManager } from '../lib';
import {
  CASE_OUTPUT_CHARS,
  checkStudentName,
  checkWork,
  forgetGrades,
  gradesFiles,
  keepGrades,
  keptGrades,
  GradingRun,
  handIn,
  markAnswer,
  programFilename,
  programOf,
  saveAsAssignment,
  sessionAssignment,
  type Assignment,
  type AssignmentDraft,
  type CheckResult,
  type GradeRow,
  type SessionAssignment,
} from '../lib/assignments';
import { errorText, m, tell } from './i18n.svelte';
import type { Reporter } from './reporter';
import { saveFile } from './save-file';

/**
 * What this needs of its session's view model: its id, name and whether it ever ran. The
 * view model owns a SessionAssignmentView and imports this module, never the reverse.
 */
export interface AssignmentOwner {
  readonly id: string;
  readonly info: { readonly name: string; readonly totalExecutions: number };
}

/** The grades table as the page draws it: rows are copied on each change, so a row redraws when it changes. */
export class GradingView {
  rows = $state.raw<GradeRow[]>([]);
  done = $state(0);
  total = $state(0);
  /** Grade submissions under way in this run (a second drop may come while the first is graded). */
  adding = $state(0);

  constructor(readonly run: GradingRun) {}

  get running(): boolean {
    return this.adding > 0;
  }

  heard(): void {
    this.rows = this.run.rows.map((r) => ({ ...r, results: [...r.results], errors: [...r.errors] }));
    ({ done: this.done, total: this.total } = this.run.progress);
  }
}

/**
 * One session's side of assignments: the assignment it carries (as the teacher's or a
 * student's), the last Check my work, and the teacher's grading of hand-ins. One per
 * SessionView, so every answer lands in the session it was asked for.
 */
export class SessionAssignmentView {
  current = $state.raw<SessionAssignment | null>(null);
  /** The last Check my work, filled in check by check; null before the first. */
  results = $state.raw<CheckResult[] | null>(null);
  checking = $state(false);
  /** Starter code for the composer, offered once when a student's session has not run anything yet. */
  starterOffer = $state<string | null>(null);
  grading = $state.raw<GradingView | null>(null);
  private offered = false;
  /** The assignment version whose kept grades were looked for (once per version). */
  private restoredFor: string | null = null;
  /** Writes of the kept grades table, one after another; a keep already waiting covers every change before it runs. */
  private gradesWrites: Promise<void> = Promise.resolve();
  private keepWaiting = false;

  constructor(
    private readonly owner: AssignmentOwner,
    private readonly manager: SessionManager,
    private readonly report: Reporter,
  ) {}

  /** Reads the session's assignment; called by the view's refresh, after the manager's reads. */
  async read(): Promise<void> {
    const found = await sessionAssignment(this.manager, this.owner.id);
    this.current = found;
    if (found?.role === 'student' && !this.offered && !this.owner.info.totalExecutions && found.assignment.starterCode.trim()) {
      this.offered = true;
      this.starterOffer = found.assignment.starterCode;
    }
    if (found?.role === 'teacher') await this.restoreGrades(found.assignment);
  }

  /** The grades table kept from an earlier page, shown again (once per assignment version, and never over a table made since). */
  private async restoreGrades(assignment: Assignment): Promise<void> {
    if (this.grading || this.restoredFor === assignment.digest) return;
    this.restoredFor = assignment.digest;
    let rows: GradeRow[] | null;
    try {
      rows = await keptGrades(this.manager, this.owner.id, assignment.digest);
    } catch (error) {
      this.report.notify(new Error(m.asg_grades_unreadable({ name: this.owner.info.name, error: errorText(error) })));
      return;
    }
    if (this.grading || !rows?.length) return;
    const view = this.newGrading(assignment, rows);
    view.heard();
    this.grading = view;
  }

  /** A grades table for `assignment`, kept on this device as its rows change. */
  private newGrading(assignment: Assignment, kept: GradeRow[] = []): GradingView {
    // The versions saved before it, when this is the session's current one: grading tells their hand-ins from forged copies.
    const earlier = this.current?.assignment.digest === assignment.digest ? (this.current.earlier ?? null) : null;
    const view: GradingView = new GradingView(
      new GradingRun(
        this.manager,
        assignment,
        () => {
          view.heard();
          this.keepGrades(view);
        },
        { kept, earlier },
      ),
    );
    return view;
  }

  /** Keeps `view`'s rows after the writes before it, unless it is no longer this session's table by then. */
  private keepGrades(view: GradingView): void {
    if (this.keepWaiting) return;
    this.keepWaiting = true;
    this.gradesWrites = this.gradesWrites
      .then(() => {
        this.keepWaiting = false;
        if (this.grading !== view) return;
        return keepGrades(this.manager, this.owner.id, view.run.assignment.digest, view.run.rows);
      })
      .catch((error) => this.report.notify(new Error(m.asg_grades_not_kept({ name: this.owner.info.name, error: errorText(error) }))));
  }

  /** Clear grades: the table goes, here and on this device (Download grades keeps a copy). */
  async clearGrades(): Promise<void> {
    if (this.grading?.running) return;
    this.grading = null;
    this.gradesWrites = this.gradesWrites
      .then(() => forgetGrades(this.manager, this.owner.id))
      .catch((error) => this.report.notify(new Error(m.asg_grades_not_cleared({ name: this.owner.info.name, error: errorText(error) }))));
    await this.gradesWrites;
  }

  /** Save as assignment: the session becomes the teacher's copy, and the file for students is downloaded. */
  async save(draft: AssignmentDraft): Promise<void> {
    const { assignment, earlier, file } = await saveAsAssignment(this.manager, this.owner.id, draft);
    this.current = { role: 'teacher', assignment, ...(earlier ? { earlier } : {}) };
    saveFile(file);
    this.report.inform(m.asg_saved({ title: assignment.title, file: file.name }));
  }

  /** Marks message `seq` as this session's answer, the program its cases test (null: the latest Code message). */
  async markAnswer(seq: number | null): Promise<void> {
    const found = this.current;
    if (!found) return;
    try {
      await markAnswer(this.manager, this.owner.id, seq);
      const { answer: _, ...rest } = found;
      this.current = seq === null ? rest : { ...rest, answer: seq };
      this.results = null;
    } catch (error) {
      this.report.notify(new Error(m.asg_mark_failed({ name: this.owner.info.name, error: errorText(error) })));
    }
  }

  /**
   * What this session's program (its latest Code message, or `file`) prints with `input` as
   * its stdin: the expected output of a case, recorded from the teacher's own solution.
   */
  async solutionOutput(input: string, file: string | undefined): Promise<string> {
    const program = await programOf(this.manager, this.owner.id, { rule: 'exact', cases: [], ...(file ? { file } : {}) }, this.current?.answer);
    if (program.from === 'none') throw new Error(m.asg_nothing_to_run({ why: tell(program.reason) }));
    const filename = programFilename(program);
    const ran = await this.manager.runProgram(
      this.owner.id,
      { source: program.source, filename, input, outputChars: CASE_OUTPUT_CHARS },
      { timeoutMs: (this.current?.assignment.timeLimitSeconds ?? 30) * 1000 },
    );
    if (ran.ended !== 'finished') throw new Error(m.asg_solution_failed({ why: typeof ran.message === 'string' ? ran.message : tell(ran.message) }) + (ran.stderr ? `\n${ran.stderr}` : ''));
    return ran.stdout;
  }

  /** Check my work: each check against a copy of the variables, shown as it finishes. */
  async check(): Promise<CheckResult[] | null> {
    this.checking = true;
    this.results = [];
    try {
      const results = await checkWork(this.manager, this.owner.id, (r) => (this.results = [...(this.results ?? []), r]));
      this.results = results;
      return results;
    } catch (error) {
      this.report.notify(new Error(m.asg_check_failed_notice({ name: this.owner.info.name, error: errorText(error) })));
      return null;
    } finally {
      this.checking = false;
    }
  }

  /** Hand in: checks the work again, then saves `<assignment>-<name>.pytabs.zip`; the session stays as it was. */
  async handIn(name: string): Promise<string> {
    checkStudentName(name);
    const results = await this.check();
    if (!results) throw new Error(m.asg_hand_in_not_checked());
    const file = await handIn(this.manager, this.owner.id, name, results);
    saveFile(file);
    this.report.inform(m.asg_handed_in({ file: file.name }));
    return file.name;
  }

  /** Grade submissions: the files join this session's grading run (a new one when none is under way). */
  async grade(files: FileList | File[]): Promise<void> {
    const found = this.current;
    if (found?.role !== 'teacher') {
      this.report.notify(new Error(m.asg_only_teacher_grades()));
      return;
    }
    let view = this.grading;
    if (!view || (!view.running && view.run.assignment.digest !== found.assignment.digest)) {
      view = this.newGrading(found.assignment);
      this.grading = view;
    }
    const read = await Promise.all([...files].map(async (f) => ({ name: f.name, data: new Uint8Array(await f.arrayBuffer()) })));
    view.adding++;
    try {
      await view.run.add(read);
    } catch (error) {
      this.report.notify(error);
    } finally {
      view.adding--;
      view.heard();
    }
  }

  stopGrading(): void {
    this.grading?.run.stop();
  }

  /** Download grades as `.xlsx` or `.csv`. */
  async downloadGrades(kind: 'xlsx' | 'csv'): Promise<void> {
    const view = this.grading;
    if (!view) return;
    try {
      const files = await gradesFiles(view.run.assignment, view.run.rows);
      if (kind === 'xlsx') saveFile(files.xlsx, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      else saveFile(files.csv, 'text/csv');
    } catch (error) {
      this.report.notify(new Error(m.asg_grades_file_failed({ error: errorText(error) })));
    }
  }
}
