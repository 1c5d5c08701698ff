/** Outgoing e-mail over SMTP (nodemailer). */
import nodemailer from 'nodemailer';

export interface MailerOptions {
  host: string | undefined;
  port: number;
  secure: boolean;
  user?: string | undefined;
  password?: string | undefined;
  from: string;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  configured: boolean;
}

export function createMailer(options: MailerOptions): Mailer {
  if (!options.host) {
    return {
      configured: false,
      send: () => Promise.reject(new Error('SMTP_HOST is not set: cannot send e-mail')),
    };
  }
  const transport = nodemailer.createTransport({
    host: options.host,
    port: options.port,
    secure: options.secure,
    ...(options.user ? { auth: { user: options.user, pass: options.password ?? '' } } : {}),
  });
  return {
    configured: true,
    async send(mail) {
      await transport.sendMail({ from: options.from, ...mail });
    },
  };
}
