import type { MailStrings } from './types.js';

// Neutral Spanish, addressing the reader as "tú"; Spanish quotes «…» as the RAE recommends.
const q = (name: string) => `«${name}»`;
const plural = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

const ES_ROLES = { owner: 'propietario', admin: 'administrador', member: 'miembro' } as const;

export const es: MailStrings = {
  htmlLang: 'es',
  layout: {
    sentBy: (company) => `Enviado por ${company} a través de linkvault`,
    sentVia: 'Enviado a través de linkvault',
    linkFallback: 'Si el botón no funciona, copia y pega este enlace en tu navegador:',
    colon: ':',
    unverified: (address) => `${address} (dirección no verificada)`,
  },
  otpCode: {
    subject: (d) => `${d.code} es tu código para ver ${q(d.documentName)}`,
    preheader: (d) => `Es válido durante ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Tu código de verificación',
    intro: (d) => `Usa este código para abrir ${q(d.documentName)}:`,
    validity: (d) => `El código es válido durante ${plural(d.minutes, 'minuto', 'minutos')}.`,
    ignore: 'Si no has pedido este código, puedes ignorar este correo. No lo compartas con nadie.',
  },
  documentShared: {
    subject: (d) => `${d.senderName} ha compartido ${q(d.documentName)} contigo`,
    preheader: () => 'Ábrelo directamente en tu navegador.',
    heading: 'Han compartido un documento contigo',
    intro: (d) => `${d.senderName} ha compartido contigo el documento ${q(d.documentName)}.`,
    messageFrom: (d) => `Mensaje de ${d.senderName}:`,
    button: 'Ver el documento',
  },
  accessRequested: {
    subject: (d) => `${d.requesterEmail} solicita acceso a ${q(d.documentName)}`,
    preheader: () => 'Apruébala o deniégala desde el panel.',
    heading: 'Nueva solicitud de acceso',
    intro: (d) => `${d.requesterEmail} ha solicitado acceso a ${q(d.documentName)}.`,
    labels: { email: 'Correo electrónico', ip: 'Dirección IP', requestId: 'ID de la solicitud' },
    button: 'Revisar la solicitud',
    approveHowTo: 'O apruébala desde la API con esta petición:',
    denyHowTo: (body) => `Para denegarla, envía la misma petición con ${body}.`,
    outcome: 'El visitante recibirá un correo con tu respuesta.',
  },
  accessApproved: {
    subject: (d) => `Ya puedes ver ${q(d.documentName)}`,
    preheader: () => 'Se ha aprobado tu solicitud de acceso.',
    heading: 'Acceso concedido',
    intro: (d) => `Buenas noticias: se ha aprobado tu solicitud para ver ${q(d.documentName)}.`,
    button: 'Ver el documento',
  },
  accessDenied: {
    subject: (d) => `Se ha denegado tu solicitud para ver ${q(d.documentName)}`,
    preheader: () => 'Quien compartió el documento no ha aprobado tu solicitud.',
    heading: 'Solicitud denegada',
    intro: (d) => `Quien compartió ${q(d.documentName)} ha denegado tu solicitud de acceso.`,
    followUp: 'Si crees que se trata de un error, ponte en contacto con la persona que te envió el enlace.',
  },
  purchaseReceipt: {
    subject: (d) => `Recibo de tu compra: ${q(d.documentName)}`,
    preheader: () => 'Tu enlace de descarga ya está listo.',
    heading: '¡Gracias por tu compra!',
    intro: (d) => `Hemos recibido tu pago de ${d.amountFormatted} por ${q(d.documentName)}.`,
    labels: { document: 'Documento', amount: 'Total pagado' },
    button: 'Descargar el archivo',
    limits: (d) =>
      `Con este enlace puedes descargar el archivo ${d.downloadsAllowed === 1 ? 'una sola vez' : `hasta ${d.downloadsAllowed} veces`} ` +
      `durante ${d.validDays === 1 ? 'las próximas 24 horas' : `los próximos ${d.validDays} días`}.`,
    keepSafe: 'Guarda este correo y no lo reenvíes: cualquiera que tenga el enlace podrá descargar el archivo.',
  },
  saleMade: {
    subject: (d) => `${q(d.documentName)} se vendió por ${d.amountFormatted}`,
    preheader: (d) => `Lo compró ${d.buyerEmail}.`,
    heading: 'Has hecho una venta',
    intro: (d) => `${d.buyerEmail} compró ${q(d.documentName)} por ${d.amountFormatted}.`,
    labels: { buyer: 'Comprador', document: 'Documento', amount: 'Importe' },
    button: 'Abrir sus estadísticas',
    footer: 'El comprador recibió un recibo con su enlace de descarga. El pago va a tu cuenta de Stripe conectada.',
  },
  invitation: {
    subject: (d) => `${d.inviterName} te ha invitado a ${d.accountName} en linkvault`,
    preheader: (d) => `Únete como ${ES_ROLES[d.role]}.`,
    heading: 'Tienes una invitación',
    intro: (d) => `${d.inviterName} te ha invitado a unirte a ${q(d.accountName)} en linkvault como ${ES_ROLES[d.role]}.`,
    button: 'Aceptar la invitación',
    validity: (d) => `La invitación es válida durante ${plural(d.days, 'día', 'días')}.`,
    ignore: 'Si no esperabas esta invitación, puedes ignorar este correo.',
  },
  viewAlert: {
    subject: (d) => `${d.visitor} abrió ${q(d.documentName)}`,
    preheader: (d) => `${d.viewedAt}`,
    heading: 'Han abierto tu documento',
    intro: (d) => `${d.visitor} acaba de abrir ${q(d.documentName)}.`,
    labels: { visitor: 'Visitante', document: 'Documento', time: 'Hora' },
    button: 'Abrir sus estadísticas',
    footer:
      'Recibes un correo así por visitante y documento cada hora. Para dejar de recibirlos de este documento, desactiva el aviso en sus ajustes del panel, o de todos los tuyos en tu perfil; para un resumen al día, cambia los avisos de visitas en los ajustes de compartir de la cuenta.',
  },
  viewDigest: {
    subject: (d) => `${plural(d.views.length + d.more, 'visita', 'visitas')} a tus documentos el ${d.day}`,
    preheader: (d) => `Quién abrió qué el ${d.day}.`,
    heading: 'Tus visitas del día',
    intro: (d) => `El ${d.day} (UTC) tus documentos se abrieron ${plural(d.views.length + d.more, 'vez', 'veces')}:`,
    line: (v) => `${v.visitor} abrió ${q(v.documentName)}`,
    more: (n) => `…y ${plural(n, 'visita más', 'visitas más')}.`,
    button: 'Abrir las estadísticas',
    footer:
      'Este resumen sustituye a un correo por visita. Vuelve a un correo por visita en los avisos de visitas de los ajustes de compartir de la cuenta, en el panel.',
  },
  magicLink: {
    subject: 'Tu enlace para iniciar sesión en linkvault',
    preheader: (d) => `Funciona una sola vez, durante ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Inicia sesión en linkvault',
    intro: 'Usa el botón de abajo para iniciar sesión.',
    button: 'Iniciar sesión',
    validity: (d) => `El enlace funciona una sola vez y es válido durante ${plural(d.minutes, 'minuto', 'minutos')}.`,
    ignore: 'Si no lo has pedido, ignora este correo: nadie puede iniciar sesión sin el enlace.',
  },
  passwordReset: {
    subject: 'Restablece tu contraseña de linkvault',
    preheader: (d) => `El enlace es válido durante ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Restablece tu contraseña',
    intro: 'Hemos recibido una solicitud para restablecer tu contraseña de linkvault.',
    button: 'Elegir una contraseña nueva',
    validity: (d) => `El enlace funciona una sola vez y es válido durante ${plural(d.minutes, 'minuto', 'minutos')}.`,
    ignore: 'Si no has pedido restablecerla, ignora este correo: tu contraseña no cambia.',
  },
  signUp: {
    subject: 'Confirma tu correo para linkvault',
    preheader: (d) => `El enlace es válido durante ${plural(d.hours, 'hora', 'horas')}.`,
    heading: 'Confirma tu correo',
    intro: 'Confirma tu dirección de correo para crear tu cuenta de linkvault.',
    button: 'Confirmar y continuar',
    validity: (d) => `El enlace funciona una sola vez y es válido durante ${plural(d.hours, 'hora', 'horas')}.`,
    ignore: 'Si no te has registrado, puedes ignorar este correo.',
  },
  emailChange: {
    subject: 'Confirma tu nueva dirección de acceso a linkvault',
    preheader: (d) => `El enlace es válido durante ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Confirma tu nueva dirección',
    intro: 'Has pedido iniciar sesión en linkvault con esta dirección a partir de ahora.',
    button: 'Usar esta dirección',
    validity: (d) =>
      `El enlace funciona una sola vez y es válido durante ${plural(d.minutes, 'minuto', 'minutos')}. Hasta que lo abras, inicias sesión con tu dirección actual.`,
    ignore: 'Si no lo has pedido, ignora este correo: nada cambia sin el enlace.',
  },
  signInDeleted: {
    subject: 'Se ha eliminado tu acceso a linkvault',
    preheader: 'Ya no perteneces a ninguna cuenta de linkvault.',
    heading: 'Se ha eliminado tu acceso',
    intro:
      'Se ha eliminado el acceso a linkvault de esta dirección: ya no pertenece a ninguna cuenta, y los enlaces enviados antes a ella ya no funcionan.',
    notYou: 'Si no lo hiciste tú, avisa cuanto antes a un propietario de tus cuentas: puede volver a invitarte.',
  },
  accountDeleted: {
    subject: (d) => `Se ha eliminado la cuenta de linkvault ${d.accountName}`,
    preheader: (d) => `${d.by} la eliminó, con todo su contenido.`,
    heading: 'Se ha eliminado una cuenta a la que perteneces',
    intro: (d) => `${d.by} eliminó la cuenta ${d.accountName}: sus documentos, enlaces, salas y estadísticas ya no existen, y ya no puedes abrirla.`,
    operator: 'El administrador del servidor',
    signInDeleted: 'Era la única cuenta a la que pertenecías, así que también se eliminó tu acceso a linkvault.',
  },
  emailChanged: {
    subject: 'Se ha cambiado tu dirección de acceso a linkvault',
    preheader: (d) => `Ahora inicias sesión como ${d.newEmail}.`,
    heading: 'Tu dirección de acceso ha cambiado',
    intro: (d) =>
      `Tu acceso a linkvault ha pasado de esta dirección a ${d.newEmail}. Los enlaces de acceso y de restablecimiento enviados aquí antes ya no funcionan.`,
    notYou: 'Si no has hecho tú este cambio, pide enseguida a un propietario de tu cuenta que quite esa dirección de sus miembros.',
  },
};
