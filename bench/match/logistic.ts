/** A fitted logistic model: P(y = 1 | x) = 1 / (1 + exp(-(bias + weights · x))). */
export interface LogisticFit {
  weights: number[];
  bias: number;
}

/**
 * Fits a logistic regression by Newton's method (iteratively reweighted least squares) with a small
 * ridge penalty, which keeps it defined when a feature separates the classes perfectly.
 */
export function fitLogistic(rows: readonly number[][], labels: readonly number[], ridge = 1e-3): LogisticFit {
  const width = (rows[0]?.length ?? 0) + 1;
  let beta = new Array<number>(width).fill(0);
  for (let iteration = 0; iteration < 50; iteration += 1) {
    const gradient = new Array<number>(width).fill(0);
    const hessian = Array.from({ length: width }, () => new Array<number>(width).fill(0));
    rows.forEach((row, index) => {
      const x = [1, ...row];
      const p = sigmoid(dot(beta, x));
      const w = Math.max(p * (1 - p), 1e-9);
      for (let i = 0; i < width; i += 1) {
        gradient[i]! += (labels[index]! - p) * x[i]!;
        for (let j = 0; j < width; j += 1) hessian[i]![j]! += w * x[i]! * x[j]!;
      }
    });
    for (let i = 1; i < width; i += 1) {
      gradient[i]! -= ridge * rows.length * beta[i]!;
      hessian[i]![i]! += ridge * rows.length;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((value, i) => value + step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { bias: beta[0]!, weights: beta.slice(1) };
}

/** The model's probability for one row. */
export function predictLogistic(fit: LogisticFit, row: readonly number[]): number {
  return sigmoid(fit.bias + dot(fit.weights, row));
}

function sigmoid(value: number): number {
  return 1 / (1 + Math.exp(-value));
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

// Gaussian elimination with partial pivoting: the systems here are a handful of unknowns
function solve(matrix: number[][], vector: number[]): number[] {
  const size = vector.length;
  const a = matrix.map((row, i) => [...row, vector[i]!]);
  for (let column = 0; column < size; column += 1) {
    let pivot = column;
    for (let row = column + 1; row < size; row += 1) {
      if (Math.abs(a[row]![column]!) > Math.abs(a[pivot]![column]!)) pivot = row;
    }
    [a[column], a[pivot]] = [a[pivot]!, a[column]!];
    for (let row = column + 1; row < size; row += 1) {
      const factor = a[row]![column]! / a[column]![column]!;
      for (let k = column; k <= size; k += 1) a[row]![k]! -= factor * a[column]![k]!;
    }
  }
  const solution = new Array<number>(size).fill(0);
  for (let row = size - 1; row >= 0; row -= 1) {
    let sum = a[row]![size]!;
    for (let k = row + 1; k < size; k += 1) sum -= a[row]![k]! * solution[k]!;
    solution[row] = sum / a[row]![row]!;
  }
  return solution;
}
